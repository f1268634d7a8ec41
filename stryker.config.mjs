// Mutation testing (`npm run test:mutation`, docs/testing.md): Stryker changes the code one small
// way at a time (a `<` into `<=`, a condition into `true`, a string into "") and runs the tests
// that cover the change; a mutant no test notices marks a gap in the tests. Not part of `npm test`
// or CI: it takes tens of minutes. This run mutates the lifecycle plans and the hook tools'
// argument handling against their unit tests; stryker.authorization.config.mjs mutates agent
// authorization against its integration test.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  // A representative part of the lifecycle plans and of the hook tools' argument handling: all of
  // both (shared/domain/plans/**, agent/hook-tools/{flags,relation-flag,format}.ts and
  // commands/**) make about 5,000 mutants, over an hour and a half on this host, so the scores in
  // docs/testing.md are measured on these files. Pass `--mutate <glob>` to mutate others.
  mutate: [
    // The plans that destroy and remove, and those that join and leave relations: what each state
    // change reads, decides and writes.
    'shared/domain/plans/destroy-{application,unit,relation,machine,model}.ts',
    'shared/domain/plans/{add-relation,enter-scope,leave-scope}.ts',
    // Flag parsing, --relation and --format, shared by every hook tool.
    'agent/hook-tools/{flags,relation-flag,format}.ts',
    // The tools' own arguments: the relation tools, status-set, the port tools, config-get,
    // leader-get/set, juju-log, unit-get.
    'agent/hook-tools/commands/{relation-get,relation-set,relation-ids,relation-list,status,ports,config-get,leader,juju-log,unit-get}.ts',
  ],
  coverageAnalysis: 'perTest',
  // A mutant in a module-level constant (a Set of names, a message) is 'static': no test covers
  // it alone, so every test runs for it. Here 4% of the mutants took 73% of the time; they are
  // reported as ignored rather than run.
  ignoreStatic: true,
  // The host has two cores, shared with the rest of the team's work.
  concurrency: 1,
  timeoutMS: 60_000,
  reporters: ['clear-text', 'json', 'progress-append-only'],
  jsonReporter: { fileName: 'reports/mutation/plans-and-hook-tools.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  // The score measured in docs/testing.md, rounded down: a fall fails the run.
  thresholds: { high: 80, low: 60, break: 89 },
};
