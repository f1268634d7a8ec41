// ssh-keys [--full] (alias list-ssh-keys): Juju 3.6's
// (https://github.com/juju/juju/blob/3.6/cmd/juju/sshkeys/list_sshkeys.go): the model's keys as
// `<md5 fingerprint> (<comment>)` lines under `Keys used in model: admin/<model>`, or the keys
// themselves with --full; `No keys to display.` on stderr when there are none.
import type { Command } from 'commander';
import type { Cli } from '../context.js';

export function registerSshKeys(program: Command, cli: Cli): void {
  program
    .command('ssh-keys')
    .alias('list-ssh-keys')
    .description("Lists the model's SSH keys: their fingerprints and comments, or the whole keys.")
    .option('--full', 'show full key instead of just the fingerprint')
    .addHelpText('after', '\nExamples:\n  drover ssh-keys\n  drover ssh-keys -m staging --full')
    .action(async (opts: { full?: boolean }) => {
      const client = await cli.client();
      const { keys } = await client.get<{ keys: string[] }>('ssh-keys', opts.full ? { full: 'true' } : {});
      if (keys.length === 0) {
        cli.io.stderr('No keys to display.\n');
        return;
      }
      const { model } = await cli.target();
      cli.io.stdout(`Keys used in model: admin/${model}\n${keys.join('\n')}\n`);
    });
}
