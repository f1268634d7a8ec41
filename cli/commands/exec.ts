// `drover exec`: Juju 3's `juju exec` (https://github.com/juju/juju/blob/3.6/cmd/juju/action/exec.go)
// for units: the command runs in each target unit's hook context (its hook tools, CHARM_DIR...)
// as the predefined juju-exec action, one task per unit. `<app>/leader` is the leader's unit. A
// machine (`--machine`, `--all`) runs it through the agent of a unit on it, and its result is
// keyed by the machine, as Juju keys it. Plain format prints each command's stdout and stderr
// (under a `<receiver>:` line when there are several); JSON and YAML print a document by
// receiver; either way a command that exited non-zero fails the whole (exit 1, Juju's "the
// following task failed"), and, as Juju's exec, no progress lines are printed.
import { Option, type Command } from 'commander';
import type { Task } from '#shared/domain/operations.js';
import { isValidApplicationName, isValidMachineId, isValidUnitName } from '#shared/domain/names.js';
import { collect } from '../arguments.js';
import type { Cli } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { parseDuration, type DataFormat } from '../output.js';
import { waitForTasks } from '../wait-tasks.js';
import { compareNatural } from '#shared/domain/natural-order.js';
import { DEFAULT_EXEC_WAIT_MS, enqueueOrReport, failedTasksError, reportQueued } from './actions.js';

interface Queued {
  operation: string;
  tasks: { id: string; unit: string }[];
  machineOf?: Record<string, string>;
}

interface ExecTargetFlags {
  units: string[];
  applications: string[];
  machines: string[];
  all: boolean;
}

const list = (values: string[] | undefined) => (values ?? []).flatMap((v) => v.split(',')).filter(Boolean);
const LEADER = /^([a-z][a-z0-9]*(?:-[a-z0-9]*[a-z][a-z0-9]*)*)\/leader$/;

/** Juju's Init checks of the targets, in its words (usage errors). */
export function checkExecTargets({ units, applications, machines, all }: ExecTargetFlags): void {
  if (all) {
    if (machines.length) throw new UsageError('You cannot specify --all and individual machines');
    if (applications.length) throw new UsageError('You cannot specify --all and individual applications');
    if (units.length) throw new UsageError('You cannot specify --all and individual units');
  } else if (!units.length && !applications.length && !machines.length) {
    throw new UsageError('You must specify a target, either through --all, --machine, --application or --unit');
  }
  const invalid = [
    ...machines.filter((m) => !isValidMachineId(m)).map((m) => `  "${m}" is not a valid machine id`),
    ...applications.filter((a) => !isValidApplicationName(a)).map((a) => `  "${a}" is not a valid application name`),
    ...units.filter((u) => !LEADER.test(u) && !isValidUnitName(u)).map((u) => `  "${u}" is not a valid unit name`),
  ];
  if (invalid.length) throw new UsageError(`The following exec targets are not valid:\n${invalid.join('\n')}`);
}

/** A string ending in a newline unless empty, as Juju's forceNewline. */
const withNewline = (text: unknown) => (typeof text !== 'string' || !text ? '' : text.endsWith('\n') ? text : `${text}\n`);

/**
 * Juju 3.6's plain exec output (printExecOutput): each receiver's stdout then stderr, both on
 * stdout; with several receivers, in natural order, each under `<receiver>:` and followed by a
 * blank line.
 */
export function plainExecOutput(tasks: Task[], receiverOf: (task: Task) => string): string {
  const outputs = tasks
    .map((t) => ({ receiver: receiverOf(t), text: withNewline(t.results?.stdout) + withNewline(t.results?.stderr) }))
    .sort((a, b) => compareNatural(a.receiver, b.receiver));
  if (outputs.length === 1) return outputs[0]!.text;
  return outputs.map((o) => `${o.receiver}:\n${o.text}\n`).join('');
}

/**
 * A task that ended without its command's exit status (its agent died, or the command could not
 * start): Juju's exec would print nothing and exit 0; drover says why and exits 1, so no failure
 * passes unnoticed.
 */
function unfinishedTaskError(tasks: Task[]): CliError | undefined {
  const unfinished = tasks.find((t) => t.status !== 'completed' && typeof t.results?.['return-code'] !== 'number');
  return unfinished && new CliError(`task ${unfinished.id} ${unfinished.status}: ${unfinished.message ?? 'no exit status'}`);
}

export function registerExec(program: Command, cli: Cli): void {
  program
    .command('exec')
    .description('Run a command in the hook context of the target units (or on machines, through a unit on each).')
    .argument('<command...>', 'the command and its arguments (after --)')
    .option('-u, --unit <units>', 'one or more unit names, or <application>/leader (repeatable, or comma-separated)', collect)
    .option('-a, --application <applications>', 'one or more application names (repeatable, or comma-separated)', collect)
    .addOption(new Option('--app <applications>', 'same as --application').argParser(collect).hideHelp())
    .option('--machine <machines>', 'one or more machine ids: the command runs through a unit on each', collect)
    .option('--all', 'run the command on every machine that hosts a unit')
    .option('--timeout <duration>', 'how long the command may run', '5m')
    .option('--background', 'run in the background; print how to check on the operation')
    .option('--wait <duration>', 'maximum wait time for the command to complete (default: 5m)')
    .addOption(new Option('--format <format>', 'output format').choices(['plain', 'json', 'yaml']).default('plain'))
    .addHelpText(
      'after',
      `
Examples:
  drover exec --unit mysql/0 -- hostname
  drover exec --unit mysql/leader --format json -- is-leader
  drover exec --application mysql -- 'config-get --format json'
  drover exec --machine 0 -- uptime
  drover exec --unit mysql/0,mysql/1 --background -- uptime`,
    )
    .action(
      async (
        words: string[],
        opts: {
          unit?: string[];
          application?: string[];
          app?: string[];
          machine?: string[];
          all?: boolean;
          timeout: string;
          background?: boolean;
          wait?: string;
          format: 'plain' | DataFormat;
        },
      ) => {
        const targets: ExecTargetFlags = {
          units: list(opts.unit),
          applications: list([...(opts.application ?? []), ...(opts.app ?? [])]),
          machines: list(opts.machine),
          all: opts.all === true,
        };
        checkExecTargets(targets);
        const command = words.join(' ').trim();
        if (!command) throw new UsageError('no commands specified');
        if (opts.background && opts.wait !== undefined) throw new UsageError('cannot specify both --wait and --background');
        const timeoutMs = parseDuration(opts.timeout);
        const waitMs = opts.wait !== undefined ? parseDuration(opts.wait) : DEFAULT_EXEC_WAIT_MS;
        const client = await cli.client();
        const queued = await enqueueOrReport(cli, () =>
          client.post<'exec', Queued>('exec', {
            ...(targets.units.length ? { units: targets.units } : {}),
            ...(targets.applications.length ? { applications: targets.applications } : {}),
            ...(targets.machines.length ? { machines: targets.machines } : {}),
            ...(targets.all ? { all: true } : {}),
            command,
            timeout: timeoutMs / 1000,
          }),
        );
        if (!queued) return;
        const machineOf = queued.machineOf ?? {};
        const receiverOf = (task: Task) => machineOf[task.unit] ?? task.unit;
        if (opts.background || opts.format !== 'plain') {
          await reportQueued(cli, client, queued, {
            background: opts.background ?? false,
            waitMs,
            format: opts.format,
            receiverOf,
            progress: false,
          });
          return;
        }
        const tasks = await waitForTasks(cli, client, queued.tasks, waitMs);
        cli.io.stdout(plainExecOutput(tasks, receiverOf));
        const failed = failedTasksError(tasks) ?? unfinishedTaskError(tasks);
        if (failed) throw failed;
      },
    );
}
