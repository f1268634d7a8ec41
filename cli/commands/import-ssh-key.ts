// import-ssh-key lp:<user>|gh:<user>: Juju fetches the keys from Launchpad or GitHub on the
// controller. A drover controller reaches neither (its functions have no way out but AWS's own
// endpoints, and the local one is meant to run offline), so it is refused plainly, in the shape
// of Juju's NotSupported errors, with what to run instead.
import type { Command } from 'commander';
import { CliError } from '../errors.js';

export function registerImportSshKey(program: Command): void {
  program
    .command('import-ssh-key')
    .description('Not in drover: importing keys needs Launchpad or GitHub; use add-ssh-key.')
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      throw new CliError(
        'importing ssh keys not supported: the controller does not reach Launchpad or GitHub; ' +
          'add the keys with `drover add-ssh-key "$(curl -fsS https://github.com/<user>.keys)"` instead',
      );
    });
}
