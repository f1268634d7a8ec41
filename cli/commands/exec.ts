// `drover exec`: Juju 3's `juju exec` (https://github.com/juju/juju/blob/3.6/cmd/juju/action/exec.go)
// for units: the command runs in each target unit's hook context (its hook tools, CHARM_DIR...)
// as the predefined juju-exec action, one task per unit. One target prints the command's stdout
// and stderr and exits with its status; several print a YAML document keyed by unit.
import { Option, type Command } from 'commander';
import type { Task } from '../../shared/domain/operations.js';
import { checkApplicationNames, checkMachineIds, checkUnitNames, collect } from '../arguments.js';
import type { Cli } from '../context.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import { parseDuration, type DataFormat } from '../output.js';
import { waitForTasks } from '../wait-tasks.js';
import { reportQueued } from './actions.js';

interface Queued {
  operation: string;
  tasks: { id: string; unit: string }[];
}

const list = (values: string[] | undefined) => (values ?? []).flatMap((v) => v.split(',')).filter(Boolean);

export function registerExec(program: Command, cli: Cli): void {
  program
    .command('exec')
    .description('Run a command in the hook context of the target units.')
    .argument('<command...>', 'the command and its arguments (after --)')
    .option('-u, --unit <units>', 'one or more unit names (repeatable, or comma-separated)', collect)
    .option('-a, --application <applications>', 'one or more application names (repeatable, or comma-separated)', collect)
    .addOption(new Option('--app <applications>', 'same as --application').argParser(collect).hideHelp())
    .option('--machine <machines>', 'one or more machine ids (not supported by drover)', collect)
    .option('--timeout <duration>', 'how long the command may run', '5m')
    .option('--background', 'run in the background; print how to check on the operation')
    .option('--wait <duration>', 'maximum wait time for the command to complete (default: no limit)')
    .addOption(new Option('--format <format>', 'output format').choices(['plain', 'json', 'yaml']).default('plain'))
    .addHelpText(
      'after',
      `
Examples:
  drover exec --unit mysql/0 -- hostname
  drover exec --application mysql -- 'config-get --format json'
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
          timeout: string;
          background?: boolean;
          wait?: string;
          format: 'plain' | DataFormat;
        },
      ) => {
        const [units, applications, machines] = [
          list(opts.unit),
          list([...(opts.application ?? []), ...(opts.app ?? [])]),
          list(opts.machine),
        ];
        checkUnitNames(units);
        checkApplicationNames(applications);
        checkMachineIds(machines);
        if (machines.length) {
          throw new CliError(
            'drover exec runs commands in the hook context of units; --machine is not supported, use --unit or --application',
          );
        }
        if (!units.length && !applications.length) {
          throw new UsageError('you must specify a target, either through --machine, --application or --unit');
        }
        const command = words.join(' ').trim();
        if (!command) throw new UsageError('no commands specified');
        if (opts.background && opts.wait !== undefined) throw new UsageError('cannot specify both --wait and --background');
        const timeoutMs = parseDuration(opts.timeout);
        const waitMs = opts.wait !== undefined ? parseDuration(opts.wait) : undefined;
        const client = await cli.client();
        const queued = await client.post<'exec', Queued>('exec', {
          ...(units.length ? { units } : {}),
          ...(applications.length ? { applications } : {}),
          command,
          timeout: timeoutMs / 1000,
        });
        if (opts.background || queued.tasks.length > 1 || opts.format !== 'plain') {
          await reportQueued(cli, client, queued, {
            background: opts.background ?? false,
            waitMs,
            format: opts.format === 'plain' ? 'yaml' : opts.format,
          });
          return;
        }
        // One target, plain: the command's own output and exit status, as Juju prints them.
        const [task] = (await waitForTasks(cli, client, [queued.tasks[0]!.id], waitMs)) as [Task];
        const results = task.results ?? {};
        if (typeof results.stdout === 'string') cli.io.stdout(results.stdout);
        if (typeof results.stderr === 'string') cli.io.stderr(results.stderr);
        const code = typeof results['return-code'] === 'number' ? results['return-code'] : undefined;
        if (task.status !== 'completed') {
          if (code === undefined || code === 0) throw new CliError(task.message ?? `task ${task.id} ${task.status}`);
          throw new ExitCode(code);
        }
      },
    );
}
