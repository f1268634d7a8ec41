// Constraints: the application's (set-constraints <app> / Juju 1's `set-constraints --service
// <app>`) and the model's (set-model-constraints, and Juju 1's set-constraints with no
// application). Values are checked locally first, so `mem=lots` fails before anything is sent.
import { Option, type Command } from 'commander';
import { parseConstraints } from '#shared/domain/constraints.js';
import { isDroverError } from '#shared/domain/errors.js';
import type { Cli } from '../context.js';
import { CliError } from '../errors.js';
import { printData, type DataFormat } from '../output.js';

export function checkedConstraints(text: string): string {
  try {
    parseConstraints(text);
    return text;
  } catch (e) {
    if (isDroverError(e)) throw new CliError(e.message);
    throw e;
  }
}

/** Which application, if any, the arguments name: `--service app`, or a first argument without `=`. */
function splitTarget(args: string[], service?: string): { application?: string; constraints: string[] } {
  if (service) return { application: service, constraints: args };
  const [first, ...rest] = args;
  if (first !== undefined && !first.includes('=')) return { application: first, constraints: rest };
  return { constraints: args };
}

async function setConstraints(cli: Cli, application: string | undefined, items: string[]): Promise<void> {
  const constraints = checkedConstraints(items.join(' '));
  const client = await cli.client();
  if (application) await client.post('set-constraints', { application, constraints });
  else await client.post('set-model-constraints', { constraints });
}

type ConstraintsFormat = 'constraints' | DataFormat;

/**
 * Juju's formats: `constraints` (the text), or JSON/YAML of its constraints.Value, whose keys are
 * the constraint names (`{"mem": 4096, "cores": 2}`, sizes in MiB); none is `{}`.
 */
async function getConstraints(cli: Cli, application: string | undefined, format: ConstraintsFormat): Promise<void> {
  const client = await cli.client();
  const { constraints } = application
    ? await client.post<'get-constraints', { constraints: string }>('get-constraints', { application })
    : await client.post<'get-model-constraints', { constraints: string }>('get-model-constraints', {});
  if (format !== 'constraints') return printData(cli.io, parseConstraints(constraints), format);
  if (constraints) cli.io.stdout(`${constraints}\n`);
}

const formatOption = () => new Option('--format <format>', 'output format').choices(['constraints', 'json', 'yaml']).default('constraints');

export function registerConstraints(program: Command, cli: Cli): void {
  program
    .command('set-constraints')
    .summary("Set an application's (or the model's) constraints.")
    .description("Set an application's constraints (replacing them); with no application, the model's.")
    .argument('[application]', 'the application (or use --service)')
    .argument('[constraints...]', 'key=value constraints; none clears them')
    .option('--service <application>', "the application (Juju 1's form of the argument)")
    .addHelpText(
      'after',
      `
Examples:
  drover set-constraints mysql mem=8G cores=4
  drover set-constraints --service mysql mem=8G
  drover set-constraints mem=2G          # the model's constraints`,
    )
    .action(async (first: string | undefined, rest: string[], opts: { service?: string }) => {
      const { application, constraints } = splitTarget([...(first !== undefined ? [first] : []), ...rest], opts.service);
      await setConstraints(cli, application, constraints);
    });

  program
    .command('get-constraints')
    .alias('constraints')
    .summary("Show an application's (or the model's) constraints.")
    .description("Show an application's constraints; with no application, the model's.")
    .argument('[application]', 'the application (or use --service)')
    .option('--service <application>', "the application (Juju 1's form of the argument)")
    .addOption(formatOption())
    .addHelpText(
      'after',
      "\nExamples:\n  drover constraints mysql\n  drover get-constraints mysql --format json\n  drover get-constraints          # the model's",
    )
    .action(async (application: string | undefined, opts: { service?: string; format: ConstraintsFormat }) =>
      getConstraints(cli, opts.service ?? application, opts.format),
    );

  program
    .command('set-model-constraints')
    .summary("Set the model's constraints.")
    .description("Set the model's constraints: the defaults for new machines.")
    .argument('[constraints...]', 'key=value constraints; none clears them')
    .addHelpText('after', '\nExamples:\n  drover set-model-constraints mem=4G\n  drover set-model-constraints instance-type=t3.large')
    .action(async (constraints: string[]) => setConstraints(cli, undefined, constraints));

  program
    .command('model-constraints')
    .alias('get-model-constraints')
    .description("Show the model's constraints.")
    .addOption(formatOption())
    .addHelpText('after', '\nExamples:\n  drover model-constraints\n  drover model-constraints --format json')
    .action(async (opts: { format: ConstraintsFormat }) => getConstraints(cli, undefined, opts.format));
}
