// The user's remedies for stuck things: resolved (a unit whose hook failed; what-we-run-and-why.txt's
// `resolved <machine> --constraints` for a machine whose provisioning failed) and retry-provisioning.
import type { Command } from 'commander';
import { isValidMachineId, isValidUnitName } from '#shared/domain/names.js';
import type { ApiClient } from '../client.js';
import type { Cli } from '../context.js';
import { CliError, UsageError, silentFailure } from '../errors.js';
import { allUnits } from '#shared/domain/status-document.js';
import { checkedConstraints } from './constraints.js';
import { readWholeStatus } from '../status/read-pages.js';

async function unitsInError(client: ApiClient): Promise<string[]> {
  const doc = await readWholeStatus(client);
  return allUnits(doc)
    .filter((u) => u.unit['workload-status'].current === 'error')
    .map((u) => u.name);
}

async function machinesInError(client: ApiClient): Promise<string[]> {
  const doc = await readWholeStatus(client);
  return Object.entries(doc.machines)
    .filter(([, m]) => m['machine-status'].current === 'provisioning error')
    .map(([id]) => id);
}

/** One request per machine, so that each failure gets its own line, as Juju reports them. */
async function eachMachine(cli: Cli, machines: string[], call: (machine: string) => Promise<unknown>): Promise<void> {
  let failed = false;
  for (const machine of machines) {
    try {
      await call(machine);
    } catch (e) {
      if (!(e instanceof CliError) || machines.length === 1) throw e;
      cli.io.stderr(`ERROR ${e.message}\n`);
      failed = true;
    }
  }
  if (failed) throw silentFailure();
}

export function registerRemedies(program: Command, cli: Cli): void {
  program
    .command('resolved')
    .alias('resolve')
    .summary('Resolve units in error (or a failed machine).')
    .description('Mark units in error resolved (re-running the failed hook), or retry a machine whose provisioning failed.')
    .argument('[targets...]', 'units, or machine ids')
    .option('--no-retry', 'do not re-run the failed hook: treat it as having succeeded')
    .option('--all', 'every unit in error')
    .option('--constraints <constraints>', 'machines only: provision again with these constraints')
    .addHelpText(
      'after',
      `
Examples:
  drover resolved mysql/0
  drover resolved mysql/0 --no-retry
  drover resolved --all
  drover resolved 3 --constraints "instance-type=t3.large"   # a machine in provisioning error`,
    )
    .action(async (targets: string[], opts: { retry: boolean; all?: boolean; constraints?: string }) => {
      if (!targets.length && !opts.all) throw new UsageError('no unit specified');
      if (targets.length && opts.all) throw new UsageError('specify units or --all, not both');
      for (const t of targets) if (!isValidUnitName(t) && !isValidMachineId(t)) throw new UsageError(`invalid unit name "${t}"`);
      const machines = targets.filter(isValidMachineId);
      if (machines.length && machines.length !== targets.length) throw new UsageError('resolve units and machines separately');
      if (!machines.length && opts.constraints !== undefined) throw new UsageError('--constraints applies to machines only');
      if (machines.length && !opts.retry) throw new UsageError('--no-retry applies to units only');
      if (opts.constraints !== undefined) checkedConstraints(opts.constraints);

      const client = await cli.client();
      if (machines.length) {
        await eachMachine(cli, machines, (machine) =>
          client.post('resolved', { machine, ...(opts.constraints !== undefined ? { constraints: opts.constraints } : {}) }),
        );
        return;
      }
      const units = opts.all ? await unitsInError(client) : targets;
      if (!units.length) return cli.io.stderr('no units are in an error state\n');
      await client.post('resolved', { units, ...(opts.retry ? {} : { noRetry: true }) });
    });

  program
    .command('retry-provisioning')
    .summary('Provision machines again after an error.')
    .description('Provision machines again after a provisioning error, with the same constraints.')
    .argument('[machines...]', 'machine ids')
    .option('--all', 'every machine in provisioning error')
    .addHelpText('after', '\nExamples:\n  drover retry-provisioning 3\n  drover retry-provisioning --all')
    .action(async (machines: string[], opts: { all?: boolean }) => {
      if (!machines.length && !opts.all) throw new UsageError('no machine specified');
      if (machines.length && opts.all) throw new UsageError('specify machines or --all, not both');
      for (const m of machines) if (!isValidMachineId(m)) throw new UsageError(`invalid machine "${m}"`);
      const client = await cli.client();
      const targets = opts.all ? await machinesInError(client) : machines;
      if (!targets.length) return cli.io.stderr('no machines are in provisioning error\n');
      await eachMachine(cli, targets, (machine) => client.post('retry-provisioning', { machines: [machine] }));
    });
}
