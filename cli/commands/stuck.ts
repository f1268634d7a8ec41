// stuck: what the watchdog sees — entities Dying (or in provisioning error) for too long, and
// why, each with the remedy when there is one.
import { Option, type Command } from 'commander';
import type { StuckEntity } from '#shared/domain/stuck-entity.js';
import type { Cli } from '../context.js';
import { formatAge, printData, type DataFormat } from '../output.js';
import { renderTable, type Cell } from '../table.js';

export function registerStuck(program: Command, cli: Cli): void {
  program
    .command('stuck')
    .summary('Show what is stuck Dying, and why.')
    .description('Show entities Dying for too long (or in provisioning error), and what holds each.')
    .addOption(new Option('--format <format>', 'output format').choices(['tabular', 'json', 'yaml']).default('tabular'))
    .addHelpText('after', '\nExamples:\n  drover stuck\n  drover stuck --format yaml')
    .action(async (opts: { format: 'tabular' | DataFormat }) => {
      const stuck = await (await cli.client()).get<StuckEntity[]>('stuck');
      if (opts.format !== 'tabular') return printData(cli.io, stuck, opts.format);
      if (!stuck.length) return cli.io.stderr('Nothing is stuck.\n');
      const rows: Cell[][] = [['Entity', 'Life', 'For', 'Blocked by']];
      for (const s of stuck) {
        const [first = '', ...more] = s.reasons;
        rows.push([s.entity, s.life, formatAge(s.ageSeconds), first]);
        // One reason a line, so long lists stay readable.
        for (const reason of more) rows.push(['', '', '', reason]);
      }
      cli.io.stdout(renderTable(rows, cli.colour));
    });
}
