// refresh <application> (Juju 3; `upgrade-charm` is Juju 2.9's name): a charm from Charmhub takes
// the newest revision of the channel it tracks, or of `--channel`, or `--revision`; the controller
// resolves and fetches it as deploy does. `--path <charm dir|.charm>` takes a local charm instead,
// read, validated and packed as for deploy, as its charm's next local revision. `--switch <name|path>`
// replaces the charm with another, from Charmhub or local, decided as deploy decides
// (cli/charmhub-ref.ts); `--resource name=path` uploads files that become their resources' next
// revisions (with a charm already up to date, the resources alone change, as Juju's refresh does).
// Flags are checked as Juju 3.6's refresh Init checks them
// (https://github.com/juju/juju/blob/3.6/cmd/juju/application/refresh.go). The units upgrade
// themselves: each runs upgrade-charm, then config-changed (charms-in-action.txt).
import type { Command } from 'commander';
import type { RequestOf } from '#shared/api/requests.js';
import { collect, nonNegativeInteger } from '../arguments.js';
import { readCharmDir } from '../charm-dir.js';
import { charmRequest } from '../charm-request.js';
import { charmhubName, refreshedLine, type CharmhubSummary } from '../charmhub-ref.js';
import type { Cli } from '../context.js';
import { ApiError, CliError, UsageError } from '../errors.js';
import { resourceFiles, uploadResources } from '../resource-upload.js';

interface UpgradeCharmResponse {
  application: string;
  charmUrl: string;
  charmhub?: CharmhubSummary;
  /** The charm was up to date; the refresh uploaded resources to it (Juju's words for it). */
  alreadyUpToDate?: string;
}

interface RefreshFlags {
  path?: string;
  switch?: string;
  resource?: string[];
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
    .option('--switch <charm>', 'crossgrade to a different charm: a Charmhub name (or ch:<name>), or a local charm directory or .charm')
    .option('--resource <name=path>', 'a file to upload for a resource the new charm declares (repeatable)', collect)
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
  drover refresh db --switch postgresql --channel 14/stable
  drover refresh wordpress --resource theme=./theme.tgz
  drover upgrade-charm wordpress --path ./charms/wordpress --force-units`,
    )
    .action(async (application: string, opts: RefreshFlags) => {
      // Juju 3.6's refresh Init, in its order and words (usage errors).
      if (opts.switch !== undefined && opts.revision !== undefined) throw new UsageError('--switch and --revision are mutually exclusive');
      if (opts.path !== undefined && opts.revision !== undefined) throw new UsageError('--path and --revision are mutually exclusive');
      if (opts.switch !== undefined && opts.path !== undefined) throw new UsageError('--switch and --path are mutually exclusive');
      if (opts.path !== undefined && opts.channel !== undefined) throw new CliError('--path cannot be used with --channel');
      const switchName = opts.switch !== undefined ? await charmhubName(opts.switch) : undefined;
      const localPath = opts.path ?? (opts.switch !== undefined && switchName === undefined ? opts.switch : undefined);
      if (localPath !== undefined && opts.switch !== undefined && opts.channel !== undefined)
        throw new CliError('--switch to a local charm cannot be used with --channel');
      const charm =
        localPath !== undefined ? await readCharmDir(localPath, opts.path !== undefined ? '--path takes' : '--switch takes') : undefined;
      // A local charm's declarations are checked here; a Charmhub charm's by the controller once it has it.
      const resourceArgs = opts.resource ? await resourceFiles(charm ? charm.meta.resources : null, opts.resource) : undefined;
      const client = await cli.client({ timeoutMs: 300_000 });
      const request: RequestOf<'upgrade-charm'> = {
        application,
        charm: charm
          ? await charmRequest(client, charm)
          : {
              charmhub: {
                ...(switchName !== undefined ? { name: switchName } : {}),
                ...(opts.channel !== undefined ? { channel: opts.channel } : {}),
                ...(opts.revision !== undefined ? { revision: opts.revision } : {}),
              },
            },
        ...(opts.forceUnits ? { forceUnits: true } : {}),
        ...(charm && opts.switch !== undefined ? { switch: true } : {}),
        ...(resourceArgs ? { resources: await uploadResources(client, resourceArgs) } : {}),
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
      if (result.alreadyUpToDate) return cli.io.stderr(`${result.alreadyUpToDate}. Attempt to update resources requested.\n`);
      // Juju 3's line for a charm from Charmhub; Juju 2.9's for a local charm.
      cli.io.stderr(result.charmhub ? refreshedLine(result.charmhub) : `Added charm "${result.charmUrl}" to the model.\n`);
    });
}
