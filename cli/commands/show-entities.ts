// show-unit and show-application, as Juju 3.6 writes them
// (https://github.com/juju/juju/blob/3.6/cmd/juju/application/showunit.go, show.go): what status
// knows of each, and what only the unit or application item holds (relation data, constraints).
import { Option, type Command } from 'commander';
import type { UnitDetails } from '#shared/api/unit-details.js';
import { allUnits, type StatusDoc } from '#shared/domain/status-document.js';
import { checkApplicationNames, checkUnitNames } from '../arguments.js';
import type { Cli } from '../context.js';
import { CliError } from '../errors.js';
import { printData, type DataFormat } from '../output.js';
import { unitInfo, type ShowUnitFilter } from '../unit-info.js';

const formatOption = () => new Option('--format <format>', 'output format').choices(['yaml', 'json']).default('yaml');

export function registerShowEntities(program: Command, cli: Cli): void {
  program
    .command('show-unit')
    .description("Displays information about a unit: its machine, ports, charm, leadership and relations' data.")
    .argument('<units...>', 'units, e.g. mysql/0')
    .option('--endpoint <endpoint>', 'only show relation data for the specified endpoint')
    .option('--related-unit <unit>', 'only show relation data for the specified unit')
    .option('--app', 'only show application relation data')
    .addOption(formatOption())
    .addHelpText('after', '\nExamples:\n  drover show-unit mysql/0\n  drover show-unit mysql/0 logging/1 --format json')
    .action(async (names: string[], opts: ShowUnitFilter & { app?: boolean; format: DataFormat }) => {
      checkUnitNames(names);
      const client = await cli.client();
      const doc = await client.get<StatusDoc>('status', { unit: names });
      const units = allUnits(doc);
      const out: Record<string, unknown> = {};
      for (const name of names) {
        const found = units.find((u) => u.name === name);
        if (!found) throw new CliError(`unit "${name}" not found`);
        const details = await client.get<UnitDetails>('show-unit', { unit: name });
        const principal = found.principal ? units.find((u) => u.name === found.principal)?.unit : undefined;
        const filter = { ...opts, ...(opts.app ? { appOnly: true } : {}) };
        out[name] = unitInfo(found.unit, doc.applications[found.application]!, details, principal, filter);
      }
      printData(cli.io, out, opts.format);
    });

  program
    .command('show-application')
    .description('Displays information about an application: its charm, base, constraints and exposure.')
    .argument('<applications...>', 'applications')
    .addOption(formatOption())
    .addHelpText('after', '\nExamples:\n  drover show-application mysql\n  drover show-application mysql --format json')
    .action(async (names: string[], opts: { format: DataFormat }) => {
      checkApplicationNames(names);
      const client = await cli.client();
      const doc = await client.get<StatusDoc>('status', { application: names });
      const out: Record<string, unknown> = {};
      for (const name of names) {
        const app = doc.applications[name];
        if (!app) throw new CliError(`application "${name}" not found`);
        const { constraints } = await client.post<'get-constraints', { constraints: string }>('get-constraints', { application: name });
        const base = app.base as { name: string; channel: string } | undefined;
        out[name] = {
          charm: app['charm-name'],
          ...(base ? { base: `${base.name}@${base.channel}` } : {}),
          ...(app['charm-channel'] ? { channel: app['charm-channel'] } : {}),
          ...(constraints ? { constraints } : {}),
          principal: !app['subordinate-to'],
          exposed: app.exposed,
          remote: false,
          life: app.life ?? 'alive',
        };
      }
      printData(cli.io, out, opts.format);
    });
}
