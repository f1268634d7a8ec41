// find <query>: Charmhub's search, as `juju find` prints it
// (https://github.com/juju/juju/blob/3.6/cmd/juju/charmhub/find.go and findwriter.go): Name,
// Bundle, Version, Publisher and the first line of the Summary, or `No matching charms or bundles`.
import { Option, type Command } from 'commander';
import type { FindResult } from '#shared/charmhub/transport.js';
import { charmhubFailure, cliCharmhub } from '../charmhub-client.js';
import type { Cli } from '../context.js';
import { formatData } from '../output.js';
import { renderTable } from '../table.js';

/** Juju's FindResponse view (cmd/juju/charmhub/convert.go), for --format json|yaml. */
function findView(result: FindResult) {
  const release = result['default-release'];
  const bases = release?.revision.bases ?? [];
  return {
    type: result.type,
    id: result.id,
    name: result.name,
    publisher: result.result.publisher?.['display-name'] ?? '',
    summary: result.result.summary ?? '',
    version: release?.revision.version ?? '',
    arches: [...new Set(bases.map((b) => b.architecture))],
    os: [...new Set(bases.map((b) => b.name))],
    supports: bases.map((b) => ({ name: b.name, channel: b.channel })),
    'store-url': result.result['store-url'] ?? '',
  };
}

export function registerFind(program: Command, cli: Cli): void {
  program
    .command('find')
    .description('Queries the Charmhub store for available charms or bundles.')
    .argument('[query]', 'what to look for in charm names')
    .option('--charmhub-url <url>', "the Charmhub to query (default: the model's charmhub-url, or https://api.charmhub.io)")
    .addOption(new Option('--format <format>', 'output format').choices(['tabular', 'json', 'yaml']).default('tabular'))
    .addHelpText('after', '\nExamples:\n  drover find wordpress')
    .action(async (query: string | undefined, opts: { charmhubUrl?: string; format: 'tabular' | 'json' | 'yaml' }) => {
      const client = await cliCharmhub(cli, opts.charmhubUrl);
      const found = await client.find(query ?? '').catch(charmhubFailure);
      const results = found.results ?? [];
      if (opts.format !== 'tabular') return cli.io.stdout(formatData(results.map(findView), opts.format));
      if (results.length === 0) return cli.io.stderr('No matching charms or bundles\n');
      const empty = (query ?? '') === '';
      if (empty) cli.io.stdout('No search term specified. Here are some interesting charms:\n\n');
      const rows = results.map((r) => {
        const view = findView(r);
        return [view.name, r.type === 'bundle' ? 'Y' : '-', view.version, view.publisher, view.summary.trim().split('\n')[0] ?? ''];
      });
      cli.io.stdout(`${renderTable([['Name', 'Bundle', 'Version', 'Publisher', 'Summary'], ...rows], false)}\n`);
      if (empty) cli.io.stdout('Provide a search term for more specific results.\n');
    });
}
