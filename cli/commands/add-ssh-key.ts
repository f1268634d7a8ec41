// add-ssh-key <key>...: Juju 3.6's (https://github.com/juju/juju/blob/3.6/cmd/juju/sshkeys/add_sshkeys.go).
// Each key is added to the model's authorized-keys unless refused (invalid, a duplicate); a refusal
// is a line on stderr, `cannot add key "<key>": <why>`, and, as in Juju, the others are still added
// and the command succeeds. The agents install the keys on every machine of the model.
import type { Command } from 'commander';
import type { SshKeyResult } from '#shared/domain/plans/ssh-keys.js';
import type { Cli } from '../context.js';
import { UsageError } from '../errors.js';

export function registerAddSshKey(program: Command, cli: Cli): void {
  program
    .command('add-ssh-key')
    .description('Adds a public SSH key to a model: its agents install it on every machine, now and later.')
    .argument('[keys...]', 'public keys, each quoted whole')
    .addHelpText('after', '\nExamples:\n  drover add-ssh-key "$(cat ~/.ssh/id_ed25519.pub)"')
    .action(async (keys: string[]) => {
      if (keys.length === 0) throw new UsageError('no ssh key specified');
      const client = await cli.client();
      const { errors } = await client.post<'add-ssh-keys', SshKeyResult>('add-ssh-keys', { keys });
      errors.forEach((error, i) => {
        if (error !== null) cli.io.stderr(`cannot add key ${JSON.stringify(keys[i])}: ${error}\n`);
      });
    });
}
