// config <app> [key] [key=value ...] (Juju 1's get/set), and expose/unexpose: an application's
// settings as the user changes them.
import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { parseYaml } from '#shared/domain/yaml.js';
import { checkApplicationNames, commaList, splitAssignment } from '../arguments.js';
import type { Cli } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { printData, type DataFormat } from '../output.js';
import { errorMessage } from '#shared/domain/errors.js';

/** Juju 3.6's `config <app>` document: `application-config` (trust) beside the charm's `settings`. */
interface ConfigView {
  application: string;
  'application-config': Record<string, { value?: unknown }>;
  charm: string;
  settings: Record<string, { value?: unknown }>;
}

async function readValueFile(key: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read the value of "${key}" from "${path}": ${errorMessage(e)}`);
  }
}

/** `--file`: `{<application>: {key: value}}` (Juju's layout) or a plain `{key: value}`. */
async function readSettingsFile(path: string, application: string): Promise<Record<string, string>> {
  let doc: unknown;
  try {
    doc = parseYaml(await readFile(path, 'utf8'));
  } catch (e) {
    throw new CliError(`cannot read config file "${path}": ${errorMessage(e).split('\n')[0]}`);
  }
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isMap(doc)) throw new CliError(`config file "${path}" must be a YAML mapping of option names to values`);
  const settings = isMap(doc[application]) ? doc[application] : doc;
  return Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
}

export function registerConfig(program: Command, cli: Cli): void {
  program
    .command('config')
    .summary("Show or change an application's configuration.")
    .description("Show or change an application's configuration (changes run config-changed on every unit).")
    .argument('<application>', 'the application')
    .argument('[settings...]', 'a key to show one value, or key=value (key=@file) assignments')
    .option('--reset <keys>', 'reset keys to their defaults, comma-separated', commaList)
    .option('--file <path>', 'a YAML file of settings to set')
    .addOption(new Option('--format <format>', 'output format when showing all settings').choices(['yaml', 'json']).default('yaml'))
    .addHelpText(
      'after',
      `
Examples:
  drover config wordpress                      # all settings, as YAML
  drover config wordpress blog-title           # one value
  drover config wordpress blog-title="My blog" debug=true
  drover config wordpress --reset blog-title
  drover config wordpress --file settings.yaml`,
    )
    .action(async (application: string, args: string[], opts: { reset?: string[]; file?: string; format: DataFormat }) => {
      const assignments = args.map(splitAssignment);
      const keys = args.filter((_, i) => assignments[i] === undefined);
      const changing = keys.length < args.length || opts.reset || opts.file;
      if (keys.length && changing) throw new UsageError('cannot set and retrieve values simultaneously');
      if (keys.length > 1) throw new UsageError('can only retrieve a single value, or all values');

      const client = await cli.client();
      if (!changing) {
        const view = await client.post<'config', ConfigView>('config', { application });
        const [key] = keys;
        if (key === undefined) return printData(cli.io, view, opts.format);
        const setting = view.settings[key] ?? view['application-config'][key];
        if (!setting) throw new CliError(`key "${key}" not found in "${application}" application config or charm settings`);
        cli.io.stdout(`${setting.value === undefined ? '' : String(setting.value)}\n`);
        return;
      }
      const set: Record<string, string> = opts.file ? await readSettingsFile(opts.file, application) : {};
      for (const pair of assignments) {
        if (!pair) continue;
        const [key, value] = pair;
        set[key] = value.startsWith('@') ? await readValueFile(key, value.slice(1)) : value;
      }
      await client.post('config', {
        application,
        ...(Object.keys(set).length ? { set } : {}),
        ...(opts.reset ? { reset: opts.reset } : {}),
      });
    });

  program
    .command('trust')
    .summary('Sets the trust status of a deployed application to true.')
    .description(
      "Sets the trust status of an application (Juju's application-config trust; --remove sets it to false). drover hands the charm no cloud credential either way.",
    )
    .argument('<application>', 'the application')
    .option('--remove', 'remove trusted access from the application')
    .option('--scope <scope>', 'k8s models only: "cluster"')
    .addHelpText('after', '\nExamples:\n  drover trust media-wiki\n  drover trust media-wiki --remove')
    .action(async (application: string, opts: { remove?: boolean; scope?: string }) => {
      checkApplicationNames([application]);
      // Juju 3.6 checks --scope on Kubernetes models only and ignores it on machine models, which
      // are drover's (https://github.com/juju/juju/blob/3.6/cmd/juju/application/trust.go).
      await (await cli.client()).post('trust', { application, trust: !opts.remove });
    });

  for (const [verb, description] of [
    ['expose', "Make the application's opened ports reachable from outside."],
    ['unexpose', "Close the application's opened ports to the outside."],
  ] as const) {
    program
      .command(verb)
      .description(description)
      .argument('<application>', 'the application')
      .addHelpText('after', `\nExamples:\n  drover ${verb} wordpress`)
      .action(async (application: string) => {
        const client = await cli.client();
        await client.post(verb, { application });
      });
  }
}
