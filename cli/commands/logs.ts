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
import { collect, nonNegativeInteger, positiveInteger } from '../arguments.js';
import { debugLogLevel, debugLogPlan, TAIL_LIMIT, type DebugLogFlags } from '../debug-log-flags.js';
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
    .summary('Displays log messages for a model.')
    .description(
      "Show the agents' logs: the last --lines lines, then new ones as they come while stdout is a terminal (as Juju 3.6: --tail and --no-tail choose).",
    )
    .option('-i, --include <entity>', 'only this unit, machine or application (repeatable)', collect)
    .option('-x, --exclude <entity>', 'not this unit, machine or application (repeatable)', collect)
    .option('-l, --level <level>', 'lowest level shown, one of TRACE, DEBUG, INFO, WARNING, ERROR', debugLogLevel)
    .option('-n, --lines <n>', 'show this many of the most recent lines and continue to append new ones', positiveInteger('--lines'), 10)
    .option('--limit <n>', 'show this many of the most recent lines and then exit (0: no limit)', nonNegativeInteger('--limit'), 0)
    .option('--replay', 'show the entire log and continue to append new lines')
    .option('--tail', 'wait for new lines (the default when stdout is a terminal)')
    .option('--no-tail', 'show the existing lines and then exit')
    .addHelpText(
      'after',
      '\nExamples:\n  drover debug-log\n  drover debug-log --include mysql/0 --level ERROR\n  drover debug-log --include mysql/0 --limit 50\n  drover debug-log --replay --no-tail',
    )
    .action(async (opts: DebugLogFlags) => {
      const client = await cli.client();
      const filters = { include: opts.include, exclude: opts.exclude, level: opts.level };
      const plan = debugLogPlan(opts, cli.io.stdoutIsTTY);
      let cursor: string | undefined;
      let full = false;
      do {
        const limit = cursor === undefined ? plan.firstLimit : TAIL_LIMIT;
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
      } while (plan.follow && !cli.io.signal.aborted && (full || !(await sleep(TAIL_INTERVAL_MS, cli.io.signal))));
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
