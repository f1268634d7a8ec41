// Which of jubilant's integration tests drover can be asked to pass, and why the others are not
// run: drover runs machine models only (no Kubernetes), and deploys to its controller's own cloud
// with its own credentials (no clouds or credentials of the user's own, by design:
// docs/juju-compat.md). Charmhub is the run's stand-in (stand-in-store.ts). Each entry names a
// test module or one test; a module entry holds for all its tests.
export const NOT_RUN: ReadonlyMap<string, string> = new Map([
  [
    'tests/integration/test_cloud.py',
    "a cloud of the user's own: drover deploys to its controller's cloud (add-cloud is refused by design)",
  ],
  [
    'tests/integration/test_credentials.py',
    "credentials of the user's own: drover uses its controller's (add-credential is refused by design)",
  ],
  // test_deployment.py deploys snappass-test, a Kubernetes charm on Charmhub; three of its tests
  // ask for what only a Kubernetes model has. Its module setup and the rest run (stand-in-store.ts).
  [
    'tests/integration/test_deployment.py::test_deploy',
    "needs Kubernetes: reads the unit's `address`, which Juju's status gives Kubernetes units only",
  ],
  [
    'tests/integration/test_deployment.py::test_add_and_remove_unit',
    'needs Kubernetes: remove-unit --num-units (on a machine model Juju refuses it: "--num-units for non k8s models not valid")',
  ],
  ['tests/integration/test_deployment.py::test_deploy_with_resources', 'needs Kubernetes: deploys oci-image resources by image name'],
  ['tests/integration/test_execution.py::test_ssh', "needs Kubernetes: snappass-test's workload containers (ssh and scp --container)"],
  ['tests/integration/test_execution.py::test_scp', "needs Kubernetes: snappass-test's workload containers (ssh and scp --container)"],
  ['tests/integration/test_execution.py::test_cli_input', 'needs Kubernetes: ssh --container charm'],
  [
    'tests/integration/test_execution.py::test_exec_error_machine_on_k8s',
    'needs Kubernetes: expects exec --machine to fail on a k8s model',
  ],
]);

/** Why `nodeid` is not run, or undefined when it is. */
export function whyNotRun(nodeid: string): string | undefined {
  return NOT_RUN.get(nodeid) ?? NOT_RUN.get(nodeid.split('::')[0]!);
}
