// model-defaults [key | key=value ... | --reset key,...]: the controller's defaults for new models, as
// `juju model-defaults` (https://github.com/juju/juju/blob/3.6/cmd/juju/model/defaults.go): all keys
// as a table (Attribute, Default, Controller; `-` where the controller sets none, `""` for an
// empty value), YAML or JSON `{key: {default, controller}}`, one key in the same shapes, or changes.
// A default applies to the models added after it; every model keeps the config it was created with.
import { Option, type Command } from 'commander';
import type { ModelDefaultEntry } from '#shared/domain/model-defaults.js';
import { collect, splitAssignment } from '../arguments.js';
import type { Cli } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { checkModelConfigValue } from '../model-config-values.js';
import { printData } from '../output.js';
import { renderTable } from '../table.js';

type Defaults = Record<string, ModelDefaultEntry>;

/** Juju's formatDefaultConfigTabular: `-` for a level with no value, `""` for an empty one. */
const cell = (value: string | undefined) => (value === undefined ? '-' : value === '' ? '""' : value);

const tabular = (defaults: Defaults) =>
  renderTable(
    [['Attribute', 'Default', 'Controller'], ...Object.entries(defaults).map(([key, e]) => [key, cell(e.default), cell(e.controller)])],
    false,
  );

/**
 * Juju's ConfigCommandBase: `--reset` keys, `key=value` to set and a key to get; a get goes with
 * nothing else, in its words ("cannot get value and set key=value pairs simultaneously").
 */
export function parseConfigArguments(args: string[], resetFlags: string[]): { get?: string; set: Record<string, string>; reset: string[] } {
  const reset = resetFlags.flatMap((value) => value.replace(/^,+|,+$/g, '').split(','));
  for (const key of reset)
    if (key.includes('=')) throw new UsageError(`--reset accepts a comma delimited set of keys "a,b,c", received: "${key}"`);
  const set: Record<string, string> = {};
  const get: string[] = [];
  for (const arg of args) {
    const pair = splitAssignment(arg);
    if (!pair) {
      if (arg.includes('=')) throw new UsageError(`expected "key=value", got "${arg}"`);
      get.push(arg);
      continue;
    }
    if (Object.hasOwn(set, pair[0])) throw new UsageError(`key "${pair[0]}" specified more than once`);
    set[pair[0]] = pair[1];
  }
  const actions = [
    ...(reset.length ? ['use --reset flag'] : []),
    ...(get.length ? ['get value'] : []),
    ...(Object.keys(set).length ? ['set key=value pairs'] : []),
  ];
  if (get.length && actions.length > 1) {
    const list = actions.length === 2 ? actions.join(' and ') : `${actions.slice(0, -1).join(', ')} and ${actions.at(-1)}`;
    throw new UsageError(`cannot ${list} simultaneously`);
  }
  if (get.length > 1) throw new UsageError('cannot specify multiple keys to get');
  for (const key of reset) if (Object.hasOwn(set, key)) throw new UsageError(`cannot set and reset key "${key}" simultaneously`);
  return { ...(get[0] !== undefined ? { get: get[0] } : {}), set, reset };
}

export function registerModelDefaults(program: Command, cli: Cli): void {
  program
    .command('model-defaults')
    .alias('model-default')
    .summary('Displays or sets default configuration settings for new models.')
    .description('Show or change the configuration new models start with (the model-config keys); a model keeps what it was created with.')
    .argument('[settings...]', 'a key to show one default, or key=value assignments')
    .option('-c, --controller <controller>', 'the controller (default: the current one)')
    .option('--reset <keys>', 'reset the provided comma delimited keys (repeatable)', collect)
    .addOption(new Option('--format <format>', 'output format').choices(['tabular', 'yaml', 'json']).default('tabular'))
    .addHelpText(
      'after',
      `
Examples:
  drover model-defaults                                  # every key: Juju's default and the controller's
  drover model-defaults charmhub-url                     # one key
  drover model-defaults charmhub-url=http://10.0.0.5:8080
  drover model-defaults --reset charmhub-url`,
    )
    .action(async (args: string[], opts: { controller?: string; reset?: string[]; format: 'tabular' | 'yaml' | 'json' }) => {
      const { get, set, reset } = parseConfigArguments(args, opts.reset ?? []);
      for (const [key, value] of Object.entries(set)) checkModelConfigValue(key, value);
      const client = await cli.client(opts.controller !== undefined ? { model: `${opts.controller}:` } : {});
      const changing = Object.keys(set).length > 0 || reset.length > 0;
      const { defaults } = await client.post<'model-defaults', { defaults: Defaults }>('model-defaults', {
        ...(Object.keys(set).length ? { set } : {}),
        ...(reset.length ? { reset } : {}),
      });
      if (changing) return;
      let shown = defaults;
      if (get !== undefined) {
        const entry = Object.hasOwn(defaults, get) ? defaults[get] : undefined;
        if (!entry) throw new CliError(`there are no default model values for "${get}"`);
        shown = { [get]: entry };
      }
      if (opts.format === 'tabular') return cli.io.stdout(tabular(shown));
      printData(cli.io, shown, opts.format);
    });
}
