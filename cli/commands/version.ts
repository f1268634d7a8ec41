// version: the Juju version drover stands in for, as `juju version [--all] [--format]` prints it.
import { Option, type Command } from 'commander';
import type { Cli } from '../context.js';
import { formatData } from '../output.js';
import { binaryVersion, versionDetail } from '../version.js';

export function registerVersion(program: Command, cli: Cli): void {
  program
    .command('version')
    .description('Print the Juju version drover implements, as the Juju CLI client prints its own.')
    .option('--all', 'prints all version information')
    .addOption(new Option('--format <format>', 'output format').choices(['smart', 'json', 'yaml']).default('smart'))
    .addHelpText('after', '\nExamples:\n  drover version\n  drover version --all --format json')
    .action((opts: { all?: boolean; format: 'smart' | 'json' | 'yaml' }) => {
      const version = binaryVersion();
      const value = opts.all ? versionDetail(version) : version;
      // Juju's "smart" format: a string as it is, anything else as YAML.
      if (opts.format === 'smart' && typeof value === 'string') return cli.io.stdout(`${value}\n`);
      cli.io.stdout(formatData(value, opts.format === 'json' ? 'json' : 'yaml'));
    });
}
