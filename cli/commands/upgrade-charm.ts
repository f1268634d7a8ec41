// upgrade-charm <application> --path <charm dir> (Juju 2.9; `refresh` is Juju 3's name): the
// charm directory is read, validated and packed as for deploy, and the application takes it as
// its charm's next revision. The units upgrade themselves: each runs upgrade-charm, then
// config-changed (charms-in-action.txt).
import type { Command } from 'commander';
import type { RequestOf } from '#shared/api/requests.js';
import { readCharmDir } from '../charm-dir.js';
import { charmRequest } from '../charm-request.js';
import type { Cli } from '../context.js';
import { UsageError } from '../errors.js';

interface UpgradeCharmResponse {
  application: string;
  charmUrl: string;
}

export function registerUpgradeCharm(program: Command, cli: Cli): void {
  program
    .command('upgrade-charm')
    .alias('refresh')
    .summary("Upgrade an application's charm from a local charm directory.")
    .description(
      "Upgrade an application's charm from a local charm directory. Each unit replaces its charm directory, then runs upgrade-charm and config-changed; a unit in an error state waits until it is resolved, unless --force-units.",
    )
    .argument('<application>', 'the application to upgrade')
    .option('--path <charm-dir>', 'the new version of the charm: a charm directory with the same charm name')
    .option('--force-units', 'upgrade units in an error state too (they run no upgrade-charm hook); allows a dying application')
    .addHelpText(
      'after',
      `
Examples:
  drover upgrade-charm wordpress --path ./charms/wordpress
  drover upgrade-charm wordpress --path ./charms/wordpress --force-units
  drover refresh wordpress --path ./charms/wordpress`,
    )
    .action(async (application: string, opts: { path?: string; forceUnits?: boolean }) => {
      if (opts.path === undefined) {
        throw new UsageError('--path is required: drover upgrades an application from a local charm directory (there is no charm store)');
      }
      const charm = await readCharmDir(opts.path, '--path takes');
      const client = await cli.client({ timeoutMs: 300_000 });
      const request: RequestOf<'upgrade-charm'> = {
        application,
        charm: await charmRequest(client, charm),
        ...(opts.forceUnits ? { forceUnits: true } : {}),
      };
      const result = await client.post<'upgrade-charm', UpgradeCharmResponse>('upgrade-charm', request);
      // Juju 2.9's line for a local charm.
      cli.io.stderr(`Added charm "${result.charmUrl}" to the model.\n`);
    });
}
