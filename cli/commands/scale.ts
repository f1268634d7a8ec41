// add-unit and add-machine: more units for an application, and machines for later placement.
import type { Command } from 'commander';
import { commaList, positiveInteger } from '../arguments.js';
import { seriesOrBaseFlags } from '../base-flag.js';
import type { Cli } from '../context.js';
import { checkedConstraints } from './constraints.js';
import { remainingUnitsNotice } from '../remaining-units.js';

export function registerScale(program: Command, cli: Cli): void {
  program
    .command('add-unit')
    .description('Add units to an application.')
    .argument('<application>', 'the application')
    .option('-n, --num-units <n>', 'number of units to add', positiveInteger('--num-units'), 1)
    .option('--to <placement>', 'machines for the new units, comma-separated (bypasses constraints)', commaList)
    .addHelpText('after', '\nExamples:\n  drover add-unit mysql\n  drover add-unit mysql -n 3\n  drover add-unit mysql --to 4,5')
    .action(async (application: string, opts: { numUnits: number; to?: string[] }) => {
      const client = await cli.client();
      // Juju prints nothing; the new units appear in status.
      const { remainingUnits } = await client.post<'add-unit', { remainingUnits: number }>('add-unit', {
        application,
        count: opts.numUnits,
        ...(opts.to ? { to: opts.to } : {}),
      });
      if (remainingUnits > 0) cli.io.stderr(remainingUnitsNotice(application, remainingUnits));
    });

  program
    .command('add-machine')
    .summary('Add machines to the model.')
    .description('Add machines to the model, for units placed later with --to.')
    .option('-n, --num-machines <n>', 'number of machines to add', positiveInteger('-n'), 1)
    .option('--series <series>', "the machine's series (default: the model's default series)")
    .option('--base <base>', "the machine's base, e.g. ubuntu@22.04 (instead of --series)")
    .option('--constraints <constraints>', 'constraints, over the model\'s (e.g. "mem=8G")')
    .addHelpText('after', '\nExamples:\n  drover add-machine\n  drover add-machine -n 2 --series focal --constraints "cores=4"')
    .action(async (opts: { numMachines: number; series?: string; base?: string; constraints?: string }) => {
      const seriesOrBase = seriesOrBaseFlags(opts);
      if (opts.constraints !== undefined) checkedConstraints(opts.constraints);
      const client = await cli.client();
      const { machines } = await client.post<'add-machine', { machines: string[] }>('add-machine', {
        count: opts.numMachines,
        ...seriesOrBase,
        ...(opts.constraints !== undefined ? { constraints: opts.constraints } : {}),
      });
      for (const id of machines) cli.io.stderr(`created machine ${id}\n`);
    });
}
