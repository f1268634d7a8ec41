// Juju 3's action commands (https://github.com/juju/juju/tree/3.6/cmd/juju/action): actions,
// run, show-task, operations (list-operations), show-operation.
import { escapeControlCharacters } from '../terminal-text.js';
import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { parseYaml } from '#shared/domain/yaml.js';
import type { ActionSpec } from '#shared/domain/actions.js';
import type { Task } from '#shared/domain/operations.js';
import { operationStatus } from '#shared/domain/operations.js';
import { applicationOfUnit, isValidApplicationName } from '#shared/domain/names.js';
import type { Cli } from '../context.js';
import { ApiError, CliError, UsageError } from '../errors.js';
import { parseDuration, printData, type DataFormat } from '../output.js';
import { renderTable, type Cell } from '../table.js';
import { describeQueued, goTime, operationDocument, plainResults, taskDocument, yaml, type OperationView } from '../task-output.js';
import { waitForTasks } from '../wait-tasks.js';
import { errorMessage } from '#shared/domain/errors.js';

/** Juju's action and key name rule (charm.GetActionNameRule). */
const NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
/** `mysql/0` or `mysql/leader`. */
const UNIT_OR_LEADER = /^([a-z][a-z0-9]*(?:-[a-z0-9]*[a-z][a-z0-9]*)*)\/(\d+|leader)$/;

interface Queued {
  operation: string;
  tasks: { id: string; unit: string }[];
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Juju's addValueToMap: `a.b.c=v` nests, a later value replaces an earlier one. */
function setPath(target: Record<string, unknown>, keys: string[], value: unknown) {
  let map = target;
  for (const key of keys.slice(0, -1)) {
    if (!isMap(map[key])) map[key] = {};
    map = map[key] as Record<string, unknown>;
  }
  map[keys[keys.length - 1]!] = value;
}

/** `run`'s arguments, checked as Juju's Init checks them. */
export function parseRunArgs(args: string[]): { units: string[]; action: string; assignments: [string[], string][] } {
  const units: string[] = [];
  const applications = new Set<string>();
  let action = '';
  for (const arg of args) {
    const unit = UNIT_OR_LEADER.exec(arg);
    if (unit) {
      applications.add(unit[1]!);
      units.push(arg);
    } else if (NAME.test(arg)) {
      action = arg;
      break;
    } else {
      throw new UsageError(`invalid unit or action name "${arg}"`);
    }
  }
  if (units.length === 0) throw new UsageError('no unit specified');
  if (action === '') throw new UsageError('no action specified');
  if (applications.size > 1) throw new UsageError('all units must be of the same application');
  const assignments: [string[], string][] = [];
  for (const arg of args.slice(units.length + 1)) {
    const eq = arg.indexOf('=');
    if (eq === -1) throw new UsageError(`argument "${arg}" must be of the form key.key.key...=value`);
    const keys = arg.slice(0, eq).split('.');
    for (const key of keys) {
      if (!NAME.test(key)) {
        throw new UsageError(
          `key "${key}" must start and end with lowercase alphanumeric, and contain only lowercase alphanumeric and hyphens`,
        );
      }
    }
    assignments.push([keys, arg.slice(eq + 1)]);
  }
  return { units, action, assignments };
}

async function readParams(path: string | undefined, assignments: [string[], string][], stringArgs: boolean) {
  let params: Record<string, unknown> = {};
  if (path !== undefined) {
    let doc: unknown;
    try {
      doc = parseYaml(await readFile(path, 'utf8'));
    } catch (e) {
      throw new CliError(`cannot read params file "${path}": ${errorMessage(e).split('\n')[0]}`);
    }
    if (doc !== null && doc !== undefined && !isMap(doc)) throw new CliError('params must contain a YAML map with string keys');
    params = (doc as Record<string, unknown> | null) ?? {};
  }
  for (const [keys, raw] of assignments) {
    // Values are YAML (`n=3` is a number) unless --string-args, as in Juju.
    let value: unknown = raw;
    if (!stringArgs) {
      try {
        value = parseYaml(raw);
      } catch {
        value = raw;
      }
    }
    setPath(params, keys, value ?? raw);
  }
  return params;
}

/** Juju 3.6's error after printing the results: the tasks whose process exited non-zero. */
export function failedTasksError(tasks: Task[]): CliError | undefined {
  const failed = tasks.flatMap((t) => {
    const code = t.results?.['return-code'];
    return typeof code === 'number' && code >= 1 ? [` - id "${t.id}" with return code ${code}`] : [];
  });
  if (!failed.length) return undefined;
  const s = failed.length > 1 ? 's' : '';
  return new CliError(`the following task${s} failed:\n${failed.sort().join('\n')}\n\nuse 'drover show-task' to inspect the failure${s}`);
}

/**
 * Prints finished tasks as `juju run` does. JSON and YAML: a document by receiver (the unit, or
 * the machine it ran for), then, as Juju 3.6, exit 1 if a task's process exited non-zero (an
 * action that only called action-fail exits 0: its status says it). Plain: exit 1 if any failed.
 */
export function printTaskResults(
  cli: Cli,
  tasks: Task[],
  format: 'plain' | DataFormat,
  receiverOf: (task: Task) => string = (t) => t.unit,
): void {
  if (format !== 'plain') {
    const doc = Object.fromEntries(tasks.map((t) => [receiverOf(t), taskDocument(t)]));
    printData(cli.io, doc, format);
    const failed = failedTasksError(tasks);
    if (failed) throw failed;
    return;
  }
  if (tasks.length === 1) {
    const task = tasks[0]!;
    const { stdout, stderr } = plainResults(task);
    cli.io.stdout(stdout);
    if (stderr) cli.io.stderr(stderr);
    if (task.status !== 'completed') {
      cli.io.stderr(`Action id ${task.id} failed: ${escapeControlCharacters(task.message ?? task.status)}\n`);
      throw new CliError('', true);
    }
    return;
  }
  cli.io.stdout(yaml(Object.fromEntries(tasks.map((t) => [t.unit, taskDocument(t)]))));
  if (tasks.some((t) => t.status !== 'completed')) throw new CliError('', true);
}

export function registerActions(program: Command, cli: Cli): void {
  program
    .command('actions')
    .alias('list-actions')
    .description("List the actions an application's charm defines.")
    .argument('<application>', 'the application')
    .option('--schema', "show each action parameters' JSON Schema")
    .addOption(new Option('--format <format>', 'output format').choices(['default', 'tabular', 'json', 'yaml']).default('default'))
    .action(async (application: string, opts: { schema?: boolean; format: string }) => {
      if (!isValidApplicationName(application)) throw new UsageError(`invalid application name "${application}"`);
      const { actions } = await (await cli.client()).get<{ actions: Record<string, ActionSpec> }>('actions', { application });
      const names = Object.keys(actions).sort();
      // Juju: --schema prints YAML unless told otherwise; tabular lists names and descriptions.
      const format = opts.format === 'default' ? (opts.schema ? 'yaml' : 'tabular') : opts.format;
      if (opts.schema) {
        if (format === 'tabular') throw new UsageError('full schema not compatible with tabular output');
        return printData(cli.io, Object.fromEntries(names.map((n) => [n, actions[n]!.params])), format as DataFormat);
      }
      if (format !== 'tabular')
        return printData(cli.io, Object.fromEntries(names.map((n) => [n, actions[n]!.description])), format as DataFormat);
      if (!names.length) return cli.io.stderr(`No actions defined for ${application}.\n`);
      const rows: Cell[][] = [['Action', 'Description'], ...names.map((n) => [n, actions[n]!.description])];
      cli.io.stdout(renderTable(rows, cli.colour));
    });

  program
    .command('run')
    .description('Run an action on the given unit(s), and wait for its results.')
    .argument('[unit-and-action...]', '<unit> [<unit> ...] <action-name> [<key>=<value> [<key>[.<key> ...]=<value>]]')
    .option('--params <file>', 'path to yaml-formatted params file')
    .option('--string-args', 'use raw string values of CLI args')
    .option('--background', 'run the task in the background')
    .option('--wait <duration>', 'maximum wait time for a task to complete (default: 60s)')
    .addOption(new Option('--format <format>', 'output format').choices(['plain', 'json', 'yaml']).default('plain'))
    .addHelpText(
      'after',
      `
Examples:
  drover run mysql/3 backup --background
  drover run mysql/3 backup --wait=2m
  drover run mysql/3 backup --format yaml
  drover run mysql/3 backup out=out.tar.bz2 file.kind=xz file.quality=high
  drover run mysql/3 backup --params p.yml file.kind=xz`,
    )
    .action(
      async (
        args: string[],
        opts: { params?: string; stringArgs?: boolean; background?: boolean; wait?: string; format: 'plain' | DataFormat },
      ) => {
        const { units, action, assignments } = parseRunArgs(args);
        if (opts.background && opts.wait !== undefined) throw new UsageError('cannot specify both --wait and --background');
        const waitMs = opts.wait !== undefined ? parseDuration(opts.wait) : DEFAULT_RUN_WAIT_MS;
        const parameters = await readParams(opts.params, assignments, opts.stringArgs ?? false);
        const client = await cli.client();
        const queued = await enqueueOrReport(cli, () => client.post<'run', Queued>('run', { units, action, parameters }));
        if (!queued) return;
        await reportQueued(cli, client, queued, { background: opts.background ?? false, waitMs, format: opts.format });
      },
    );

  program
    .command('show-task')
    .description('Show the results of a task: its status, log and results.')
    .argument('<task-id>', 'the task (the ids `drover run` prints)')
    .addOption(new Option('--format <format>', 'output format').choices(['plain', 'json', 'yaml']).default('plain'))
    .action(async (id: string, opts: { format: 'plain' | DataFormat }) => {
      if (!/^\d+$/.test(id)) throw new UsageError(`invalid task id "${id}"`);
      const task = await (await cli.client()).get<Task>('show-task', { id });
      if (opts.format !== 'plain') return printData(cli.io, taskDocument(task), opts.format);
      for (const entry of task.log) cli.io.stderr(`${goTime(entry.timestamp)} ${escapeControlCharacters(entry.message)}\n`);
      if (!['completed', 'failed', 'cancelled', 'aborted'].includes(task.status)) {
        return cli.io.stdout(`Task ${task.id} is ${task.status}\n`);
      }
      printTaskResults(cli, [task], 'plain');
    });

  program
    .command('cancel-task')
    .description('Cancel pending tasks (a running task cannot be aborted).')
    .argument('<task-id...>', 'the tasks')
    .addOption(new Option('--format <format>', 'output format').choices(['json', 'yaml']).default('yaml'))
    .action(async (ids: string[], opts: { format: DataFormat }) => {
      for (const id of ids) if (!/^\d+$/.test(id)) throw new UsageError(`invalid task id "${id}"`);
      const { tasks } = await (await cli.client()).post<'cancel-task', { tasks: Task[] }>('cancel-task', { ids });
      printData(cli.io, tasks.map(taskDocument), opts.format);
    });

  program
    .command('operations')
    .alias('list-operations')
    .description('List the latest operations (actions run and commands executed), newest first.')
    .option('--limit <n>', 'how many operations to show', '50')
    .option('--status <statuses>', 'only operations with these statuses (comma-separated)')
    .option('--actions <actions>', 'only operations of these actions (comma-separated)')
    .option('--apps, --applications <applications>', 'only operations with a task on a unit of these applications')
    .option('--units <units>', 'only operations with a task on these units')
    .addOption(new Option('--format <format>', 'output format').choices(['tabular', 'json', 'yaml']).default('tabular'))
    .action(
      async (opts: { limit: string; status?: string; actions?: string; apps?: string; units?: string; format: 'tabular' | DataFormat }) => {
        if (!/^\d+$/.test(opts.limit) || Number(opts.limit) < 1) throw new UsageError('--limit must be a positive integer');
        const statuses = commaSet(opts.status);
        for (const st of statuses ?? []) {
          if (!TASK_STATUSES.includes(st))
            throw new UsageError(`"${st}" is not a valid task status, want one of ${TASK_STATUSES.join(', ')}`);
        }
        const [actions, apps, units] = [commaSet(opts.actions), commaSet(opts.apps), commaSet(opts.units)];
        const all = (await (await cli.client()).get<{ operations: OperationView[] }>('operations', { limit: opts.limit })).operations;
        const operations = all.filter(
          (o) =>
            (!statuses || statuses.has(operationStatus(o.taskItems))) &&
            (!actions || actions.has(o.action)) &&
            (!apps || o.taskItems.some((t) => apps.has(applicationOfUnit(t.unit)))) &&
            (!units || o.taskItems.some((t) => units.has(t.unit))),
        );
        if (opts.format !== 'tabular')
          return printData(cli.io, Object.fromEntries(operations.map((o) => [o.id, operationDocument(o)])), opts.format);
        if (!operations.length) return cli.io.stderr('No operations to display.\n');
        const rows: Cell[][] = [['ID', 'Status', 'Started', 'Finished', 'Task IDs', 'Summary']];
        for (const o of operations) {
          const doc = operationDocument(o) as { timing: { started?: string; completed?: string } };
          rows.push([
            o.id,
            operationStatus(o.taskItems),
            short(doc.timing.started),
            short(doc.timing.completed),
            o.tasks.join(','),
            o.summary,
          ]);
        }
        cli.io.stdout(renderTable(rows, cli.colour));
      },
    );

  program
    .command('show-operation')
    .description('Show an operation: its action, status, timing and tasks.')
    .argument('<operation-id>', 'the operation (the ids `drover run` and `drover operations` print)')
    .addOption(new Option('--format <format>', 'output format').choices(['json', 'yaml']).default('yaml'))
    .action(async (id: string, opts: { format: DataFormat }) => {
      if (!/^\d+$/.test(id)) throw new UsageError(`invalid operation id "${id}"`);
      const operation = await (await cli.client()).get<OperationView>('show-operation', { id });
      printData(cli.io, operationDocument(operation), opts.format);
    });
}

const TASK_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled', 'aborted'];
const commaSet = (value: string | undefined) => (value === undefined ? undefined : new Set(value.split(',').filter(Boolean)));

/** `2024-01-02T15:04:05` as the operations table shows times. */
const short = (goTimeText: string | undefined) => (goTimeText ? goTimeText.slice(0, 19).replace(' ', 'T') : '');

/** After queueing: --background prints how to check; otherwise wait and print the results. */
export async function reportQueued(
  cli: Cli,
  client: Awaited<ReturnType<Cli['client']>>,
  queued: Queued,
  opts: {
    background: boolean;
    waitMs: number | undefined;
    format: 'plain' | DataFormat;
    receiverOf?: (task: Task) => string;
    /** `Running operation…` and `Waiting for task…` on stderr, as `juju run` prints them (`juju exec` does not). */
    progress?: boolean;
  },
): Promise<Task[] | undefined> {
  if (opts.background) {
    if (queued.tasks.length === 1) cli.io.stdout(`Scheduled operation ${queued.operation} with task ${queued.tasks[0]!.id}\n`);
    else cli.io.stdout(`Scheduled ${describeQueued(queued.operation, queued.tasks)}`);
    cli.io.stdout(`Check operation status with 'drover show-operation ${queued.operation}'\n`);
    if (queued.tasks.length === 1) cli.io.stdout(`Check task status with 'drover show-task ${queued.tasks[0]!.id}'\n`);
    return undefined;
  }
  if (opts.progress ?? true) {
    cli.io.stderr(`Running ${describeQueued(queued.operation, queued.tasks)}\n`);
    for (const t of queued.tasks) cli.io.stderr(`Waiting for task ${t.id}...\n`);
  }
  const tasks = await waitForTasks(cli, client, queued.tasks, opts.waitMs);
  printTaskResults(cli, tasks, opts.format, opts.receiverOf);
  return tasks;
}

/**
 * Queues a run or exec. What Juju 3.6 refuses per task (a unit that does not exist, an action
 * the charm does not define, parameters its schema refuses) schedules nothing, and Juju says so
 * on stderr and exits 0 with nothing on stdout (jubilant reads that as "no such unit or action");
 * drover refuses the same before queueing anything, and reports it the same way.
 */
export async function enqueueOrReport<T>(cli: Cli, enqueue: () => Promise<T>): Promise<T | undefined> {
  try {
    return await enqueue();
  } catch (e) {
    if (!(e instanceof ApiError) || (e.code !== 'not-found' && e.code !== 'invalid-argument')) throw e;
    cli.io.stderr(`Operation failed to schedule any tasks:\n${e.message}\n`);
    return undefined;
  }
}

/** Juju's default waits: 60s for an action, 5m for exec (`--wait`). */
export const DEFAULT_RUN_WAIT_MS = 60_000;
export const DEFAULT_EXEC_WAIT_MS = 5 * 60_000;
