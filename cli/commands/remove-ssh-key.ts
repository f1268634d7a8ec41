// remove-ssh-key <fingerprint|comment|key>...: Juju 3.6's
// (https://github.com/juju/juju/blob/3.6/cmd/juju/sshkeys/remove_sshkeys.go). A key it does not
// know is a line on stderr, `cannot remove key id "<id>": <why>`; the others are still removed and,
// as in Juju, the command succeeds. The agents take the keys off every machine of the model.
import type { Command } from 'commander';
import type { SshKeyResult } from '#shared/domain/plans/ssh-keys.js';
import type { Cli } from '../context.js';
import { UsageError } from '../errors.js';

export function registerRemoveSshKey(program: Command, cli: Cli): void {
  program
    .command('remove-ssh-key')
    .description('Removes public SSH keys from a model, by fingerprint, comment or the key itself, and from its machines.')
    .argument('[ids...]', 'fingerprints (as ssh-keys prints them), comments or keys')
    .addHelpText(
      'after',
      '\nExamples:\n  drover remove-ssh-key ubuntu@ubuntu\n  drover remove-ssh-key 45:7f:33:2c:10:4e:6c:14:e3:a1:a4:c8:b2:e1:34:b4',
    )
    .action(async (ids: string[]) => {
      if (ids.length === 0) throw new UsageError('no ssh key id specified');
      const client = await cli.client();
      const { errors } = await client.post<'remove-ssh-keys', SshKeyResult>('remove-ssh-keys', { ids });
      errors.forEach((error, i) => {
        if (error !== null) cli.io.stderr(`cannot remove key id ${JSON.stringify(ids[i])}: ${error}\n`);
      });
    });
}
