// The bulk removals (remove-unit, remove-application, remove-machine and Juju 1's destroy-*
// names): every entity is tried and gets its own line, as Juju prints them; the command fails
// (exit 1, without a further ERROR line) if any entity failed.
//
// Juju 3.6's flags are all accepted (https://github.com/juju/juju/blob/3.6/cmd/juju/application/removeunit.go,
// removeapplication.go, cmd/juju/machine/remove.go): `--no-prompt` skips a confirmation that
// drover never asks (as Juju's removals when the model's `mode` does not require prompts);
// `--destroy-storage` destroys the units' persistent storage (EBS volumes) instead of keeping it
// detached (rootfs storage goes with its unit either way); `--no-wait` is valid only
// with `--force`, and a forced removal already does not wait for agents.
import type { Command } from 'commander';
import type { EntityResult } from '#shared/api/requests.js';
import { checkApplicationNames, checkMachineIds, checkNoWait, checkUnitNames } from '../arguments.js';
import type { Cli } from '../context.js';
import { silentFailure, UsageError } from '../errors.js';

interface RemovalFlags {
  force?: boolean;
  wait: boolean;
  destroyStorage?: boolean;
}

/** Juju 3.6's flags that every removal accepts beside --force. */
function removalFlags(command: Command, storage: boolean): Command {
  command
    .option('--no-prompt', 'do not ask for confirmation (drover does not ask before removals)')
    .option('--no-wait', 'with --force: do not wait for each step to complete');
  if (storage) command.option('--destroy-storage', 'destroy storage attached to the units, rather than detach it');
  return command;
}

function report(cli: Cli, results: EntityResult[]): void {
  for (const result of results) cli.io.stderr(`${result.message}\n`);
  if (results.some((r) => !r.ok)) throw silentFailure();
}

export function registerRemovals(program: Command, cli: Cli): void {
  removalFlags(
    program
      .command('remove-unit')
      .alias('destroy-unit')
      .summary('Remove units.')
      .description('Remove units: each goes Dying, runs its stop hooks, and is removed (with its machine, if left empty).')
      .argument('<units...>', 'units, e.g. mysql/0')
      .option('--force', "remove even if the unit's agent never answers (relations may be left behind)")
      // Kubernetes models' way of naming how many to remove: refused on a machine model, as Juju does.
      .option('--num-units <n>', 'number of units to remove (k8s models only: refused, drover models are machine models)'),
    true,
  )
    .addHelpText('after', '\nExamples:\n  drover remove-unit mysql/1\n  drover remove-unit mysql/1 mysql/2 --force')
    .action(async (units: string[], opts: RemovalFlags & { numUnits?: string }) => {
      if (opts.numUnits !== undefined && Number(opts.numUnits) !== 0) throw new UsageError('--num-units for non k8s models not valid');
      checkNoWait(opts);
      checkUnitNames(units);
      const client = await cli.client();
      const { results } = await client.post<'remove-unit', { results: EntityResult[] }>('remove-unit', {
        units,
        ...(opts.force ? { force: true } : {}),
        ...(opts.destroyStorage ? { destroyStorage: true } : {}),
      });
      report(cli, results);
    });

  removalFlags(
    program
      .command('remove-application')
      .aliases(['destroy-service', 'remove-service'])
      .summary('Remove applications.')
      .description('Remove applications: their units go Dying, then their relations, then the application.')
      .argument('<applications...>', 'applications')
      .option('--force', 'remove even if units never answer (relations may be left behind)'),
    true,
  )
    .addHelpText('after', '\nExamples:\n  drover remove-application wordpress\n  drover remove-application mysql --force')
    .action(async (applications: string[], opts: RemovalFlags) => {
      checkNoWait(opts);
      checkApplicationNames(applications);
      const client = await cli.client();
      const { results } = await client.post<'remove-application', { results: EntityResult[] }>('remove-application', {
        applications,
        ...(opts.force ? { force: true } : {}),
        ...(opts.destroyStorage ? { destroyStorage: true } : {}),
      });
      report(cli, results);
    });

  removalFlags(
    program
      .command('remove-machine')
      .alias('destroy-machine')
      .summary('Remove machines.')
      .description('Remove machines that host no units (with --force, their units too).')
      .argument('<machines...>', 'machine ids')
      .option('--force', 'remove the machine and every unit on it'),
    false,
  )
    .addHelpText('after', '\nExamples:\n  drover remove-machine 3\n  drover remove-machine 3 4 --force')
    .action(async (machines: string[], opts: RemovalFlags) => {
      checkNoWait(opts);
      checkMachineIds(machines);
      const client = await cli.client();
      const { results } = await client.post<'remove-machine', { results: EntityResult[] }>('remove-machine', {
        machines,
        ...(opts.force ? { force: true } : {}),
      });
      report(cli, results);
    });
}
