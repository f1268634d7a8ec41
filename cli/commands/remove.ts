// The bulk removals (remove-unit, remove-application, remove-machine and Juju 1's destroy-*
// names): every entity is tried and gets its own line, as Juju prints them; the command fails
// (exit 1, without a further ERROR line) if any entity failed.
import type { Command } from 'commander';
import type { EntityResult } from '../../shared/api/requests.js';
import { checkApplicationNames, checkMachineIds, checkUnitNames } from '../arguments.js';
import type { Cli } from '../context.js';
import { silentFailure } from '../errors.js';

function report(cli: Cli, results: EntityResult[]): void {
  for (const result of results) cli.io.stderr(`${result.message}\n`);
  if (results.some((r) => !r.ok)) throw silentFailure();
}

export function registerRemovals(program: Command, cli: Cli): void {
  program
    .command('remove-unit')
    .alias('destroy-unit')
    .summary('Remove units.')
    .description('Remove units: each goes Dying, runs its stop hooks, and is removed (with its machine, if left empty).')
    .argument('<units...>', 'units, e.g. mysql/0')
    .option('--force', "remove even if the unit's agent never answers (relations may be left behind)")
    .addHelpText('after', '\nExamples:\n  drover remove-unit mysql/1\n  drover remove-unit mysql/1 mysql/2 --force')
    .action(async (units: string[], opts: { force?: boolean }) => {
      checkUnitNames(units);
      const client = await cli.client();
      const { results } = await client.post<'remove-unit', { results: EntityResult[] }>('remove-unit', {
        units,
        ...(opts.force ? { force: true } : {}),
      });
      report(cli, results);
    });

  program
    .command('remove-application')
    .aliases(['destroy-service', 'remove-service'])
    .summary('Remove applications.')
    .description('Remove applications: their units go Dying, then their relations, then the application.')
    .argument('<applications...>', 'applications')
    .option('--force', 'remove even if units never answer (relations may be left behind)')
    .addHelpText('after', '\nExamples:\n  drover remove-application wordpress\n  drover remove-application mysql --force')
    .action(async (applications: string[], opts: { force?: boolean }) => {
      checkApplicationNames(applications);
      const client = await cli.client();
      const { results } = await client.post<'remove-application', { results: EntityResult[] }>('remove-application', {
        applications,
        ...(opts.force ? { force: true } : {}),
      });
      report(cli, results);
    });

  program
    .command('remove-machine')
    .alias('destroy-machine')
    .summary('Remove machines.')
    .description('Remove machines that host no units (with --force, their units too).')
    .argument('<machines...>', 'machine ids')
    .option('--force', 'remove the machine and every unit on it')
    .addHelpText('after', '\nExamples:\n  drover remove-machine 3\n  drover remove-machine 3 4 --force')
    .action(async (machines: string[], opts: { force?: boolean }) => {
      checkMachineIds(machines);
      const client = await cli.client();
      const { results } = await client.post<'remove-machine', { results: EntityResult[] }>('remove-machine', {
        machines,
        ...(opts.force ? { force: true } : {}),
      });
      report(cli, results);
    });
}
