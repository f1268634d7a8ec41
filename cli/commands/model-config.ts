// model-config [key | key=value ... | --reset key,...]: the model's configuration, as `juju
// model-config`: all keys as a table (Attribute, From, Value), YAML `{key: {value, source}}` or
// JSON `{key: {Value, Source}}`; one key's value; or changes. Values are checked locally first in Juju's words, so a
// bad duration fails before anything is sent.
import { Option, type Command } from 'commander';
import type { ModelConfigEntry } from '#shared/domain/model-config.js';
import { commaList, splitAssignment } from '../arguments.js';
import type { Cli } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { checkModelConfigValue } from '../model-config-values.js';
import { printData } from '../output.js';
import { renderTable } from '../table.js';

/**
 * Juju 3.6 writes model-config's JSON from a struct without JSON tags, so its keys are Go's
 * field names, `Value` and `Source` (jubilant reads `Value`); its YAML has `value` and `source`.
 */
const asJujuJson = (config: Record<string, ModelConfigEntry>) =>
  Object.fromEntries(Object.entries(config).map(([key, e]) => [key, { Value: e.value, Source: e.source }]));

export function registerModelConfig(program: Command, cli: Cli): void {
  program
    .command('model-config')
    .summary("Show or change the model's configuration.")
    .description("Show or change the model's configuration: update-status-hook-interval (a Go duration, default 5m) and logging-config.")
    .argument('[settings...]', 'a key to show one value, or key=value assignments')
    .option('--reset <keys>', 'reset keys to their defaults, comma-separated', commaList)
    .addOption(
      new Option('--format <format>', 'output format when showing all settings').choices(['tabular', 'yaml', 'json']).default('tabular'),
    )
    .addHelpText(
      'after',
      `
Examples:
  drover model-config                                   # every key, its source and value
  drover model-config update-status-hook-interval       # one value
  drover model-config update-status-hook-interval=10m
  drover model-config --reset update-status-hook-interval`,
    )
    .action(async (args: string[], opts: { reset?: string[]; format: 'tabular' | 'yaml' | 'json' }) => {
      const assignments = args.map(splitAssignment);
      const keys = args.filter((_, i) => assignments[i] === undefined);
      const changing = keys.length < args.length || opts.reset !== undefined;
      if (keys.length && changing) throw new UsageError('cannot set and retrieve values simultaneously');
      if (keys.length > 1) throw new UsageError('can only retrieve a single value, or all values');
      const set: Record<string, string> = {};
      for (const pair of assignments) {
        if (!pair) continue;
        checkModelConfigValue(pair[0], pair[1]);
        set[pair[0]] = pair[1];
      }

      const client = await cli.client();
      const { config } = await client.post<'model-config', { config: Record<string, ModelConfigEntry> }>('model-config', {
        ...(Object.keys(set).length ? { set } : {}),
        ...(opts.reset ? { reset: opts.reset } : {}),
      });
      if (changing) return;
      const [key] = keys;
      if (key !== undefined) {
        const entry = config[key];
        if (!entry) throw new CliError(`key "${key}" not found in "${(await cli.target()).model}" model.`);
        cli.io.stdout(`${entry.value}\n`);
        return;
      }
      if (opts.format === 'json') return printData(cli.io, asJujuJson(config), 'json');
      if (opts.format === 'yaml') return printData(cli.io, config, 'yaml');
      const rows = [['Attribute', 'From', 'Value'], ...Object.entries(config).map(([k, e]) => [k, e.source, e.value])];
      cli.io.stdout(renderTable(rows, false));
    });
}
