// refresh <application> (Juju 3; `upgrade-charm` is Juju 2.9's name): a charm from Charmhub takes
// the newest revision of the channel it tracks, or of `--channel`, or `--revision`; the controller
// resolves and fetches it as deploy does. `--path <charm dir|.charm>` takes a local charm instead,
// read, validated and packed as for deploy, as its charm's next local revision. The units upgrade
// themselves: each runs upgrade-charm, then config-changed (charms-in-action.txt).
import type { Command } from 'commander';
import type { RequestOf } from '#shared/api/requests.js';
import { nonNegativeInteger } from '../arguments.js';
import { readCharmDir } from '../charm-dir.js';
import { charmRequest } from '../charm-request.js';
import { refreshedLine, type CharmhubSummary } from '../charmhub-ref.js';
import type { Cli } from '../context.js';
import { ApiError, CliError } from '../errors.js';

interface UpgradeCharmResponse {
  application: string;
  charmUrl: string;
  charmhub?: CharmhubSummary;
}

interface RefreshFlags {
  path?: string;
  forceUnits?: boolean;
  channel?: string;
  revision?: number;
}

export function registerUpgradeCharm(program: Command, cli: Cli): void {
  program
    .command('upgrade-charm')
    .alias('refresh')
    .summary("Refresh an application's charm: a newer revision from Charmhub, or a local charm.")
    .description(
      "Refresh an application's charm. A charm from Charmhub takes the newest revision of the channel it tracks (or --channel, or --revision); --path takes a local charm directory or .charm instead. Each unit replaces its charm directory, then runs upgrade-charm and config-changed; a unit in an error state waits until it is resolved, unless --force-units.",
    )
    .argument('<application>', 'the application to refresh')
    .option('--path <charm-dir>', 'a local charm directory or .charm with the same charm name')
    .option('--channel <channel>', 'the Charmhub channel to refresh from (from now on the one the application tracks)')
    .option('--revision <n>', 'the Charmhub revision to refresh to', nonNegativeInteger('--revision'))
    .option('--force-units', 'upgrade units in an error state too (they run no upgrade-charm hook); allows a dying application')
    .addHelpText(
      'after',
      `
Examples:
  drover refresh postgresql                      # the newest revision of its channel
  drover refresh postgresql --channel 14/edge
  drover refresh postgresql --revision 350
  drover refresh wordpress --path ./charms/wordpress
  drover upgrade-charm wordpress --path ./charms/wordpress --force-units`,
    )
    .action(async (application: string, opts: RefreshFlags) => {
      if (opts.path !== undefined && (opts.channel !== undefined || opts.revision !== undefined))
        throw new CliError('--path cannot be used with --channel or --revision');
      const charm = opts.path !== undefined ? await readCharmDir(opts.path, '--path takes') : undefined;
      const client = await cli.client({ timeoutMs: 300_000 });
      const request: RequestOf<'upgrade-charm'> = {
        application,
        charm: charm
          ? await charmRequest(client, charm)
          : {
              charmhub: {
                ...(opts.channel !== undefined ? { channel: opts.channel } : {}),
                ...(opts.revision !== undefined ? { revision: opts.revision } : {}),
              },
            },
        ...(opts.forceUnits ? { forceUnits: true } : {}),
      };
      let result: UpgradeCharmResponse;
      try {
        result = await client.post<'upgrade-charm', UpgradeCharmResponse>('upgrade-charm', request);
      } catch (e) {
        // Juju's refresh says so and succeeds when there is nothing newer.
        if (e instanceof ApiError && e.message.endsWith(': already up-to-date')) {
          cli.io.stderr(`${e.message}\n`);
          return;
        }
        throw e;
      }
      // Juju 3's line for a charm from Charmhub; Juju 2.9's for a local charm.
      cli.io.stderr(result.charmhub ? refreshedLine(result.charmhub) : `Added charm "${result.charmUrl}" to the model.\n`);
    });
}
