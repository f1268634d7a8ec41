// Juju 3.6's storage commands (https://github.com/juju/juju/tree/3.6/cmd/juju/storage): `storage`
// (alias list-storage; its tabular columns Unit, Storage ID, Type, Pool, Size, Status, Message;
// --format json|yaml prints the `storage`, `filesystems` and `volumes` document), `show-storage`,
// `storage-pools`, `add-storage`, `detach-storage` and `remove-storage`.
import { Option, type Command } from 'commander';
import type { EntityResult } from '#shared/api/requests.js';
import { checkUnitNames } from '../arguments.js';
import type { Cli } from '../context.js';
import { silentFailure, UsageError } from '../errors.js';
import { printData, type DataFormat } from '../output.js';
import { renderTable, type Cell } from '../table.js';
import { storageTable, type StorageDoc } from '../storage-table.js';

function report(cli: Cli, results: { ok: boolean; message: string }[]): void {
  for (const result of results) cli.io.stderr(`${result.message}\n`);
  if (results.some((r) => !r.ok)) throw silentFailure();
}

const formatOption = (choices: string[], fallback: string) =>
  new Option('--format <format>', 'output format').choices(choices).default(fallback);

export function registerStorage(program: Command, cli: Cli): void {
  program
    .command('storage')
    .alias('list-storage')
    .description("Lists the model's storage instances: their units, type, pool, size and status.")
    .addOption(formatOption(['tabular', 'json', 'yaml'], 'tabular'))
    .option('--filesystem', 'list filesystem storage only')
    .option('--volume', 'list volume storage only')
    .addHelpText('after', '\nExamples:\n  drover storage\n  drover storage --format yaml\n  drover storage --filesystem')
    .action(async (opts: { format: string; filesystem?: boolean; volume?: boolean }) => {
      if (opts.filesystem && opts.volume) throw new UsageError('--filesystem and --volume options are mutually exclusive');
      const client = await cli.client();
      const doc = await client.get<StorageDoc>('storage', {});
      if (opts.filesystem || opts.volume) {
        // Juju's filesystem and volume listings: that section alone.
        const section = opts.filesystem ? { filesystems: doc.filesystems ?? {} } : { volumes: doc.volumes ?? {} };
        if (opts.format === 'tabular') {
          const kind = opts.filesystem ? 'filesystem' : 'block';
          const only = { storage: Object.fromEntries(Object.entries(doc.storage).filter(([, s]) => s.kind === kind)), ...section };
          if (!Object.keys(only.storage).length) return cli.io.stderr('No storage to display.\n');
          return cli.io.stdout(storageTable(only, cli.colour));
        }
        return printData(cli.io, section, opts.format as DataFormat);
      }
      if (opts.format !== 'tabular') return printData(cli.io, doc, opts.format as DataFormat);
      if (!Object.keys(doc.storage).length) return cli.io.stderr('No storage to display.\n');
      cli.io.stdout(storageTable(doc, cli.colour));
    });

  program
    .command('show-storage')
    .description('Shows storage instances in detail.')
    .argument('<storage-ids...>', 'storage ids, e.g. data/0')
    .addOption(formatOption(['yaml', 'json'], 'yaml'))
    .addHelpText('after', '\nExamples:\n  drover show-storage data/0\n  drover show-storage data/0 data/1 --format json')
    .action(async (ids: string[], opts: { format: DataFormat }) => {
      const client = await cli.client();
      const doc = await client.post<'show-storage', StorageDoc>('show-storage', { ids });
      printData(cli.io, doc.storage, opts.format);
    });

  program
    .command('storage-pools')
    .alias('list-storage-pools')
    .description("Lists the storage pools of the model's cloud: rootfs; ebs on AWS.")
    .addOption(formatOption(['tabular', 'json', 'yaml'], 'tabular'))
    .action(async (opts: { format: string }) => {
      const client = await cli.client();
      const { pools } = await client.get<{ pools: Record<string, { provider: string }> }>('storage-pools', {});
      if (opts.format !== 'tabular') return printData(cli.io, pools, opts.format as DataFormat);
      const rows = Object.entries(pools).map(([name, pool]): Cell[] => [name, pool.provider, '']);
      cli.io.stdout(renderTable([['Name', 'Provider', 'Attributes'], ...rows], cli.colour));
    });

  program
    .command('add-storage')
    .description(
      "Adds storage to a unit after it was deployed: <store>=<pool>,<size>,<count> (any of them; the application's directive gives the rest).",
    )
    .argument('[unit]', 'the unit, e.g. postgresql/0')
    .argument('[storage...]', '<store>[=<constraints>]')
    .addHelpText('after', '\nExamples:\n  drover add-storage postgresql/0 pgdata=2\n  drover add-storage postgresql/0 pgdata=rootfs,10G')
    .action(async (unit: string | undefined, directives: string[]) => {
      if (!unit || directives.length === 0) throw new UsageError('add-storage requires a unit and a storage directive');
      checkUnitNames([unit]);
      const storage: Record<string, string> = {};
      for (const directive of directives) {
        const [name, constraints, extra] = directive.split('=');
        if (!name || extra !== undefined) throw new UsageError(`expected "name=constraints" or "name", got ${JSON.stringify(directive)}`);
        if (Object.hasOwn(storage, name)) throw new UsageError(`storage ${JSON.stringify(name)} specified more than once`);
        // `<name>` alone is `<name>=1`, as Juju's ParseConstraintsMap reads it.
        storage[name] = constraints ?? '1';
      }
      const client = await cli.client();
      const { results } = await client.post<'add-storage', { results: { ok: boolean; message: string }[] }>('add-storage', {
        unit,
        storage,
      });
      report(cli, results);
    });

  program
    .command('detach-storage')
    .description('Detaches storage from its unit: the unit runs its -storage-detaching hook; the storage stays in the model.')
    .argument('<storage-ids...>', 'storage ids, e.g. data/0')
    .option('--force', 'detach even if the storage-detaching hook fails')
    .action(async (ids: string[], opts: { force?: boolean }) => {
      const client = await cli.client();
      const { results } = await client.post<'detach-storage', { results: EntityResult[] }>('detach-storage', {
        ids,
        ...(opts.force ? { force: true } : {}),
      });
      report(cli, results);
    });

  program
    .command('remove-storage')
    .description('Removes storage from the model, destroying it (its cloud volume too) unless --no-destroy.')
    .argument('<storage-ids...>', 'storage ids, e.g. data/0')
    .option('--force', 'remove even attached storage (it is detached first)')
    .option('--no-destroy', 'remove the storage from the model without destroying its cloud volume')
    .action(async (ids: string[], opts: { force?: boolean; destroy: boolean }) => {
      const client = await cli.client();
      const { results } = await client.post<'remove-storage', { results: EntityResult[] }>('remove-storage', {
        ids,
        ...(opts.force ? { force: true } : {}),
        ...(opts.destroy === false ? { noDestroy: true } : {}),
      });
      report(cli, results);
    });
}
