// deploy <charm-dir> [name], or deploy <bundle> (cli/bundle/apply.ts): the charm is read and
// validated locally (errors before any upload), packed, and sent with the deployment; the answer
// says what was created, and whether required relations hold the deployment back (required-relations-proposal.txt: "the CLI lists pending
// dependencies").
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parseYaml } from '#shared/domain/yaml.js';
import type { RequestOf } from '#shared/api/requests.js';
import { collect, commaList, nonNegativeInteger, splitAssignment } from '../arguments.js';
import { displayBaseOfSeries } from '#shared/domain/bases.js';
import { seriesOrBaseFlags } from '../base-flag.js';
import { readCharmDir } from '../charm-dir.js';
import { charmRequest } from '../charm-request.js';
import type { Cli } from '../context.js';
import type { ApiClient } from '../client.js';
import { CliError, UsageError } from '../errors.js';
import { parseStorageFlag, parseStorageFlags } from '#shared/domain/storage.js';
import { checkedConstraints } from './constraints.js';
import { remainingUnitsNotice } from '../remaining-units.js';
import { resourceFiles, uploadResources } from '../resource-upload.js';
import { errorMessage } from '#shared/domain/errors.js';
import { charmhubName, checkRevisionFlags, deployingLine, locatedLine, type CharmhubSummary } from '../charmhub-ref.js';

interface DeployResponse {
  application: string;
  series: string;
  units: string[];
  machines: string[];
  remainingUnits: number;
  pending?: string;
  /** Set for a charm the controller fetched from Charmhub. */
  charmhub?: CharmhubSummary;
}

/** `--config` is `key=value` or a YAML file: `{<application>: {key: value}}` or plain `{key: value}`. */
async function readConfigFlags(values: string[], application: string): Promise<Record<string, string>> {
  const config: Record<string, string> = {};
  for (const value of values) {
    const pair = splitAssignment(value);
    if (pair && !pair[0].includes('/')) {
      config[pair[0]] = pair[1];
      continue;
    }
    let doc: unknown;
    try {
      doc = parseYaml(await readFile(value, 'utf8'));
    } catch (e) {
      throw new CliError(`cannot read config file "${value}": ${errorMessage(e).split('\n')[0]}`);
    }
    const record = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
    if (!record(doc)) throw new CliError(`config file "${value}" must be a YAML mapping of option names to values`);
    const scoped = (doc as Record<string, unknown>)[application];
    const settings = (record(scoped) ? scoped : doc) as Record<string, unknown>;
    for (const [key, v] of Object.entries(settings)) config[key] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return config;
}

/** The flags that say how to deploy one charm: a bundle says all of that itself. */
const BUNDLE_UNSUPPORTED = {
  numUnits: '--num-units',
  to: '--to',
  constraints: '--constraints',
  series: '--series',
  base: '--base',
  config: '--config',
  trust: '--trust',
  resource: '--resource',
  storage: '--storage',
  channel: '--channel',
  revision: '--revision',
} as const;

export function registerDeploy(program: Command, cli: Cli): void {
  program
    .command('deploy')
    .description(
      "Deploy an application from a charm on Charmhub (by name, fetched by the controller from the model's charmhub-url), a local charm directory or .charm file, or a bundle of applications from a bundle file.",
    )
    .argument(
      '<charm-or-bundle>',
      'a charm name on Charmhub (or ch:<name>), a charm directory (metadata.yaml, optional config.yaml, hooks/ or dispatch), a .charm file, or a bundle (a .yaml file, or a directory holding bundle.yaml)',
    )
    .argument('[application-name]', "the application's name (default: the charm's name)")
    .option('-n, --num-units <n>', 'number of units to add (default 1; 0 for subordinates)', nonNegativeInteger('--num-units'))
    .option('--to <placement>', 'machines for the units, comma-separated (e.g. 1,2)', commaList)
    .option('--constraints <constraints>', 'constraints for the application\'s machines, e.g. "mem=4G cores=2"')
    .option('--series <series>', "the series to deploy on (default: the model's default if the charm supports it)")
    .option('--base <base>', 'the base to deploy on, e.g. ubuntu@22.04 (instead of --series)')
    .option('--config <key=value|file>', 'configuration: key=value, or a YAML file (repeatable)', collect)
    .option('--resource <name=path>', 'a file for a resource the charm declares (repeatable)', collect)
    .option('--storage <store=constraints>', 'storage for each unit: <store>=<pool>,<size>,<count>, any of them (repeatable)', collect)
    .option('--channel <channel>', 'the Charmhub channel to deploy from, e.g. 14/stable (default: stable)')
    .option(
      '--revision <n>',
      'the Charmhub revision to deploy (with --channel, which later refreshes follow)',
      nonNegativeInteger('--revision'),
    )
    .option('--dry-run', 'for a bundle: print the changes it would make, and make none')
    .option('--trust', "allows the charm to be deployed with access to trusted credentials (Juju's application-config trust)")
    .addHelpText(
      'after',
      `
Examples:
  drover deploy postgresql --channel 14/stable   # from Charmhub
  drover deploy ./charms/mysql
  drover deploy ./charms/mysql db -n 3 --constraints "mem=4G"
  drover deploy ./charms/wordpress --config blog-title="My blog" --series focal
  drover deploy ./charms/postgresql --storage pgdata=rootfs,10G
  drover deploy ./mysql_ubuntu-22.04-amd64.charm --base ubuntu@22.04
  drover deploy ./charms/logging          # a subordinate: units come with relations
  drover deploy ./bundle.yaml --dry-run   # what the bundle would change
  drover deploy ./bundle.yaml             # every application, unit and relation it lacks`,
    )
    .action(
      async (
        dir: string,
        name: string | undefined,
        opts: {
          numUnits?: number;
          to?: string[];
          constraints?: string;
          series?: string;
          base?: string;
          config?: string[];
          resource?: string[];
          storage?: string[];
          dryRun?: boolean;
          trust?: boolean;
          channel?: string;
          revision?: number;
        },
      ) => {
        // The bundle code is loaded only to deploy a bundle, not with the CLI (cli/launch/cli-bundle.mjs).
        const { isBundlePath } = await import('../bundle/bundle-file.js');
        if (await isBundlePath(dir)) {
          const flags: string[] = Object.entries(BUNDLE_UNSUPPORTED).flatMap(([key, flag]) =>
            opts[key as keyof typeof opts] !== undefined ? [flag] : [],
          );
          if (name !== undefined) flags.unshift('[application-name]');
          // Juju's words for the same refusal.
          if (flags.length) throw new CliError(`options provided but not supported when deploying a bundle: ${flags.join(', ')}`);
          const { deployBundle } = await import('../bundle/apply.js');
          return deployBundle(cli, dir, { dryRun: opts.dryRun === true });
        }
        if (opts.dryRun) throw new CliError('--dry-run is for bundles: drover deploys a charm at once');
        const seriesOrBase = seriesOrBaseFlags(opts);
        const fromCharmhub = await charmhubName(dir);
        if (fromCharmhub !== undefined) return deployFromCharmhub(cli, fromCharmhub, name, opts, seriesOrBase);
        if (opts.channel !== undefined || opts.revision !== undefined)
          throw new CliError(`--channel and --revision are for charms from Charmhub, not the local charm "${dir}"`);
        const charm = await readCharmDir(dir);
        const application = name ?? charm.meta.name;
        if (charm.meta.subordinate && (opts.numUnits !== undefined || opts.to))
          throw new CliError('cannot use --num-units or --to with subordinate application');
        if (charm.meta.subordinate && opts.constraints !== undefined)
          throw new CliError('cannot use --constraints with subordinate application');
        if (opts.constraints !== undefined) checkedConstraints(opts.constraints);
        const config = opts.config ? await readConfigFlags(opts.config, application) : undefined;
        const resourceArgs = opts.resource ? await resourceFiles(charm.meta.resources, opts.resource) : undefined;
        const client = await cli.client({ timeoutMs: 300_000 });
        const request: RequestOf<'deploy'> = {
          charm: await charmRequest(client, charm),
          ...(await applicationFields(client, { name, seriesOrBase, opts, config, resourceArgs })),
        };
        cli.io.stderr(`Located local charm "${charm.meta.name}", revision 0\n`);
        const result = await client.post<'deploy', DeployResponse>('deploy', request);
        // Juju 3 names the base and its risk: `on ubuntu@22.04/stable`.
        const base = displayBaseOfSeries(result.series);
        const on = base ? `${base}/stable` : result.series;
        cli.io.stderr(`Deploying "${result.application}" from local charm "${charm.meta.name}", revision 0 on ${on}\n`);
        if (result.pending) cli.io.stderr(`${result.pending}\n`);
        if (result.remainingUnits > 0) cli.io.stderr(remainingUnitsNotice(result.application, result.remainingUnits));
      },
    );
}

/** What a deploy request says of the application, whichever way its charm comes (local or Charmhub). */
async function applicationFields(
  client: ApiClient,
  given: {
    name: string | undefined;
    seriesOrBase: { series?: string; base?: string };
    opts: Pick<CharmhubDeployFlags, 'constraints' | 'numUnits' | 'to' | 'trust' | 'storage'>;
    config: RequestOf<'deploy'>['config'];
    resourceArgs: Parameters<typeof uploadResources>[1] | undefined;
  },
): Promise<Omit<RequestOf<'deploy'>, 'charm'>> {
  const { name, seriesOrBase, opts, config, resourceArgs } = given;
  return {
    ...(name ? { name } : {}),
    ...seriesOrBase,
    ...(opts.constraints !== undefined ? { constraints: opts.constraints } : {}),
    ...(config ? { config } : {}),
    ...(opts.numUnits !== undefined ? { numUnits: opts.numUnits } : {}),
    ...(opts.to ? { to: opts.to } : {}),
    ...(opts.trust ? { trust: true } : {}),
    ...(resourceArgs ? { resources: await uploadResources(client, resourceArgs) } : {}),
    ...(opts.storage ? { storage: storageFlags(opts.storage) } : {}),
  };
}

/** `--storage` values, checked as Juju's flag checks them (the controller checks them against the charm). */
function storageFlags(values: string[]): Record<string, string> {
  const stores: Record<string, string> = {};
  for (const value of values) {
    try {
      const [store, constraints] = parseStorageFlag(value);
      parseStorageFlags({ [store]: constraints });
      stores[store] = constraints;
    } catch (e) {
      throw new UsageError(`invalid value ${JSON.stringify(value)} for option --storage: ${errorMessage(e)}`);
    }
  }
  return stores;
}

interface CharmhubDeployFlags {
  numUnits?: number;
  to?: string[];
  constraints?: string;
  config?: string[];
  resource?: string[];
  storage?: string[];
  trust?: boolean;
  channel?: string;
  revision?: number;
}

/** deploy <name>: the controller resolves and fetches the charm; the CLI says what it found, as Juju's does. */
async function deployFromCharmhub(
  cli: Cli,
  charmName: string,
  name: string | undefined,
  opts: CharmhubDeployFlags,
  seriesOrBase: { series?: string; base?: string },
): Promise<void> {
  checkRevisionFlags(opts);
  if (opts.constraints !== undefined) checkedConstraints(opts.constraints);
  const application = name ?? charmName;
  const config = opts.config ? await readConfigFlags(opts.config, application) : undefined;
  // The controller checks the names against the charm it fetches.
  const resourceArgs = opts.resource ? await resourceFiles(null, opts.resource) : undefined;
  const client = await cli.client({ timeoutMs: 300_000 });
  const request: RequestOf<'deploy'> = {
    charm: {
      charmhub: {
        name: charmName,
        ...(opts.channel !== undefined ? { channel: opts.channel } : {}),
        ...(opts.revision !== undefined ? { revision: opts.revision } : {}),
      },
    },
    ...(await applicationFields(client, { name, seriesOrBase, opts, config, resourceArgs })),
  };
  const result = await client.post<'deploy', DeployResponse>('deploy', request);
  if (result.charmhub) {
    cli.io.stderr(locatedLine(result.charmhub));
    cli.io.stderr(deployingLine(result.application, result.charmhub));
  }
  if (result.pending) cli.io.stderr(`${result.pending}\n`);
  if (result.remainingUnits > 0) cli.io.stderr(remainingUnitsNotice(result.application, result.remainingUnits));
}
