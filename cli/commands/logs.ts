// debug-log and show-status-log.
//
// debug-log reads `GET /v1/debug-log?include=&exclude=&level=&limit=[&after=<cursor>]`
// (shared/api/requests.ts): without `after`, the last `limit` lines; with it, the lines logged
// since. Tailing passes each answer's cursor back.
//
// show-status-log reads
//   GET /v1/status-log?entity=<unit|machine>&type=<type>&n=<count>
//     → { entries: [{ time: ISO-8601, type: "juju-unit"|"workload"|"machine"|"juju-machine",
//                     status: "idle", message: "..." }] }
// and, against a controller too old to serve it, says so rather than printing nothing.
import { Option, type Command } from 'commander';
import { isMissingRoute, type ApiClient } from '../client.js';
import type { Cli } from '../context.js';
import { CliError } from '../errors.js';
import { positiveInteger } from '../arguments.js';
import { printData, sleep, type DataFormat } from '../output.js';
import { renderTable, statusStyle, styled, type Cell } from '../table.js';
import { escapeControlCharacters } from '../terminal-text.js';

interface StatusLogEntry {
  time: string;
  type: string;
  status: string;
  message?: string;
}

const TAIL_INTERVAL_MS = 1000;
const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'];
/** --replay and following: as much as the controller gives in one answer. */
const TAIL_LIMIT = 10_000;

async function orMissing<T>(client: ApiClient, route: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (isMissingRoute(e)) throw new CliError(`controller "${client.name}" does not serve ${route} (the API has no such route yet)`);
    throw e;
  }
}

export function registerLogs(program: Command, cli: Cli): void {
  program
    .command('debug-log')
    .description("Show the agents' logs, and follow them.")
    .option('-i, --include <entity>', 'only this unit or machine (repeatable)', (v: string, p: string[] = []) => [...p, v])
    .option('-x, --exclude <entity>', 'not this unit or machine (repeatable)', (v: string, p: string[] = []) => [...p, v])
    .addOption(new Option('-l, --level <level>', 'lowest level shown').choices(LEVELS))
    .option('-n, --lines <n>', 'how many past lines to show first', positiveInteger('--lines'), 10)
    .option('--replay', 'show the whole log from the beginning')
    .option('--no-tail', 'stop after the past lines instead of following')
    .addHelpText(
      'after',
      '\nExamples:\n  drover debug-log\n  drover debug-log --include mysql/0 --level ERROR\n  drover debug-log --replay --no-tail',
    )
    .action(async (opts: { include?: string[]; exclude?: string[]; level?: string; lines: number; replay?: boolean; tail: boolean }) => {
      const client = await cli.client();
      const filters = { include: opts.include, exclude: opts.exclude, level: opts.level };
      let cursor: string | undefined;
      let full = false;
      do {
        const limit = cursor === undefined && !opts.replay ? opts.lines : TAIL_LIMIT;
        const page = await orMissing(client, 'debug-log', () =>
          client.get<{ lines: string[]; cursor: string }>('debug-log', {
            ...filters,
            limit: String(limit),
            ...(cursor !== undefined ? { after: cursor } : {}),
          }),
        );
        // The controller formats lines as Juju does: `unit-mysql-0: 10:07:11 ERROR <module> <message>`.
        // One record is one printed line, whatever its message holds (cli/terminal-text.ts).
        for (const line of page.lines) cli.io.stdout(`${escapeControlCharacters(line)}\n`);
        cursor = page.cursor;
        // A full page while following means more is waiting: read on without pausing.
        full = cursor !== undefined && page.lines.length === limit && limit === TAIL_LIMIT;
      } while (opts.tail && !cli.io.signal.aborted && (full || !(await sleep(TAIL_INTERVAL_MS, cli.io.signal))));
    });

  program
    .command('show-status-log')
    .summary('Show the status history of an entity.')
    .description('Show the status history of a unit, machine or application.')
    .argument('<entity>', 'a unit (mysql/0), machine (1) or application')
    .addOption(
      new Option('--type <type>', 'which status history').choices([
        'unit',
        'juju-unit',
        'workload',
        'machine',
        'juju-machine',
        'application',
      ]),
    )
    .option('-n <count>', 'how many entries', positiveInteger('-n'), 20)
    .option('--utc', 'show times in UTC')
    .addOption(new Option('--format <format>', 'output format').choices(['tabular', 'json', 'yaml']).default('tabular'))
    .addHelpText('after', '\nExamples:\n  drover show-status-log mysql/0\n  drover show-status-log 1 --type machine -n 50')
    .action(async (entity: string, opts: { type?: string; n: number; utc?: boolean; format: 'tabular' | DataFormat }) => {
      const client = await cli.client();
      const { entries } = await orMissing(client, 'show-status-log', () =>
        client.get<{ entries: StatusLogEntry[] }>('status-log', { entity, type: opts.type, n: String(opts.n) }),
      );
      if (opts.format !== 'tabular') return printData(cli.io, entries, opts.format);
      const rows: Cell[][] = [['Time', 'Type', 'Status', 'Message']];
      for (const e of entries) {
        const time = opts.utc ? e.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : new Date(e.time).toLocaleString();
        rows.push([time, e.type, styled(e.status, statusStyle(e.status)), e.message ?? '']);
      }
      cli.io.stdout(renderTable(rows, cli.colour));
    });
}
