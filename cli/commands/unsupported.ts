// Juju's commands for what drover does not have by design: clouds and credentials of the user's
// own (a drover controller deploys to the cloud it runs on, local or AWS, with its own
// credentials) and Kubernetes. Each is known, so that a script gets a reason in the shape of
// Juju's NotSupported errors ("... not supported") rather than "unknown command".
import type { Command } from 'commander';
import { CliError } from '../errors.js';

const CLOUD_REASON = "drover deploys to its controller's own cloud (local or AWS), with the controller's own credentials";
const KUBERNETES_REASON = 'drover runs machine models only';

const UNSUPPORTED: [verb: string, what: string, reason: string][] = [
  ['add-cloud', 'adding clouds', CLOUD_REASON],
  ['update-cloud', 'updating clouds', CLOUD_REASON],
  ['add-credential', 'adding credentials', CLOUD_REASON],
  ['update-credential', 'updating credentials', CLOUD_REASON],
  ['add-k8s', 'Kubernetes clouds', KUBERNETES_REASON],
];

export function registerUnsupported(program: Command): void {
  for (const [verb, what, reason] of UNSUPPORTED) {
    program
      .command(verb)
      .description(`Not in drover: ${what} (${reason}).`)
      .allowUnknownOption()
      .allowExcessArguments()
      .helpOption(false)
      .action(() => {
        throw new CliError(`${what} not supported: ${reason}`);
      });
  }
}
