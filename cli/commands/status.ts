// status (Juju 3.6's formats and flags, plus drover's blocked-by) and show-machine, a view of
// the same document (show-unit and show-application: show-entities.ts).
import { storageTable, type StorageDoc } from '../storage-table.js';
import { Option, type Command } from 'commander';
import type { ApiClient } from '../client.js';
import type { Cli } from '../context.js';
import { CliError } from '../errors.js';
import { formatData, parseDuration, printData, sleep, type DataFormat } from '../output.js';
import type { StatusDoc } from '#shared/domain/status-document.js';
import { selectStatus, statusQuery } from '../status/select.js';
import { isEmptyModel, renderTabular } from '../status/tabular.js';
import { TabularStatusPrinter } from '../status/tabular-stream.js';
import { readStatusPages, readWholeStatus } from '../status/read-pages.js';
import { readCrossModelSections, withCrossModelSections } from '../status/cross-model.js';

type StatusFormat = 'tabular' | DataFormat;

interface StatusOptions {
  format: StatusFormat;
  relations?: boolean;
  /** Juju 3.6's `--storage`: the model's storage after the other sections (in JSON and YAML, its `storage` key). */
  storage?: boolean;
  watch?: string;
  color?: boolean;
}

/**
 * The document for these selectors: exact names are read on the server in one answer
 * (statusQuery); no selector, or a wildcard, needs the whole model, read a page at a time.
 */
async function readStatus(client: ApiClient, selectors: string[]): Promise<StatusDoc> {
  const query = statusQuery(selectors);
  const doc = Object.keys(query).length ? await client.get<StatusDoc>('status', query) : await readWholeStatus(client);
  const selected = selectStatus(doc, selectors);
  return selectors.length ? selected : withCrossModelSections(selected, await readCrossModelSections(client));
}

/** The whole model in tabular form, each section printed as its pages arrive. */
async function streamTabular(cli: Cli, client: ApiClient, opts: StatusOptions): Promise<void> {
  const printer = new TabularStatusPrinter((text) => cli.io.stdout(text), {
    relations: opts.relations === true,
    colour: opts.color ?? cli.colour,
    crossModel: await readCrossModelSections(client),
  });
  const pages = await readStatusPages(client, (page) => printer.add(page));
  if (opts.storage) cli.io.stdout(storageSection(cli, opts, await client.get<StorageDoc>('storage', {})));
  if (printer.empty) cli.io.stderr(`\nModel "${pages[0]!.model!.name}" is empty.\n`);
}

/** status --storage's tabular section: after a blank line, as Juju prints it; nothing when there is no storage. */
function storageSection(cli: Cli, opts: StatusOptions, doc: StorageDoc): string {
  return Object.keys(doc.storage).length ? `\n${storageTable(doc, opts.color ?? cli.colour, { forStatus: true })}` : '';
}

function render(cli: Cli, doc: StatusDoc, opts: StatusOptions, storage?: StorageDoc): { out: string; note?: string } {
  if (opts.format !== 'tabular') return { out: formatData(storage ? { ...doc, storage } : doc, opts.format) };
  const colour = opts.color ?? cli.colour;
  const out = renderTabular(doc, { relations: opts.relations === true, colour }) + (storage ? storageSection(cli, opts, storage) : '');
  return isEmptyModel(doc) ? { out, note: `\nModel "${doc.model.name}" is empty.\n` } : { out };
}

const storageOf = async (client: ApiClient, opts: StatusOptions) => (opts.storage ? client.get<StorageDoc>('storage', {}) : undefined);

const formatOption = () => new Option('--format <format>', 'output format').choices(['yaml', 'json']).default('yaml');

export function registerStatus(program: Command, cli: Cli): void {
  program
    .command('status')
    .alias('show-status')
    .summary('Show the model.')
    .description('Show the model: applications, units, machines (and relations), with what holds anything Dying.')
    .argument('[selectors...]', 'applications, units or machines to show (wildcards: mysql/*)')
    .addOption(new Option('--format <format>', 'output format').choices(['tabular', 'json', 'yaml']).default('tabular'))
    .option('--relations', 'show the relations section')
    .option('--storage', 'show the storage section')
    .option('--watch <duration>', 'refresh every <duration> (e.g. 2s) until interrupted')
    .option('--color', 'use colour even when not on a terminal')
    .option('--no-color', 'never use colour')
    .addHelpText(
      'after',
      `
Examples:
  drover status
  drover status --relations
  drover status mysql wordpress/0 3
  drover status --format yaml
  drover status --watch 2s`,
    )
    .action(async (selectors: string[], opts: StatusOptions) => {
      const interval = opts.watch !== undefined ? parseDuration(opts.watch) : undefined;
      const client = await cli.client();
      if (interval === undefined && opts.format === 'tabular' && !selectors.length) return streamTabular(cli, client, opts);
      if (interval === undefined) {
        const { out, note } = render(cli, await readStatus(client, selectors), opts, await storageOf(client, opts));
        cli.io.stdout(out);
        if (note) cli.io.stderr(note);
        return;
      }
      // --watch: redraw until interrupted; a failed read is shown and the next one tried.
      do {
        try {
          const { out, note } = render(cli, await readStatus(client, selectors), opts, await storageOf(client, opts));
          cli.io.stdout(`${cli.io.stdoutIsTTY ? '\x1b[H\x1b[2J' : ''}${out}${note ?? ''}\n`);
        } catch (e) {
          if (cli.io.signal.aborted) break;
          if (!(e instanceof CliError)) throw e;
          cli.io.stderr(`ERROR ${e.message}\n`);
        }
      } while (!(await sleep(interval, cli.io.signal)));
    });

  program
    .command('show-machine')
    .description("Show machines' details.")
    .argument('<machines...>', 'machine ids')
    .addOption(formatOption())
    .addHelpText('after', '\nExamples:\n  drover show-machine 0\n  drover show-machine 0 1 --format json')
    .action(async (ids: string[], opts: { format: DataFormat }) => {
      const doc = await (await cli.client()).get<StatusDoc>('status', { machine: ids });
      const machines: Record<string, unknown> = {};
      for (const id of ids) {
        const machine = doc.machines[id];
        if (!machine) throw new CliError(`machine ${id} not found`);
        machines[id] = machine;
      }
      printData(cli.io, { model: doc.model.name, machines }, opts.format);
    });
}
