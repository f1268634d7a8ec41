// export-bundle and diff-bundle: the model written as a bundle, and how it differs from one
// (cli/bundle/export.ts, cli/bundle/diff.ts). Deploying a bundle is `deploy <bundle>`. The bundle
// code is loaded by these commands alone, not with the CLI (cli/launch/cli-bundle.mjs).
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { Cli } from '../context.js';
import { CliError } from '../errors.js';
import { formatData } from '../output.js';
import { errorMessage } from '#shared/domain/errors.js';

export function registerBundles(program: Command, cli: Cli): void {
  program
    .command('export-bundle')
    .summary('Write the model as a bundle.')
    .description(
      'Write the model as a bundle that deploys back to the same shape: its applications, units on numbered machines, options set, constraints, exposure and relations. Local charms are written as ./<charm name>: put each charm directory there to deploy the bundle again.',
    )
    .option('--filename <file>', 'write the bundle to this file instead of standard output')
    .action(async (opts: { filename?: string }) => {
      const [{ exportBundle }, { readModel }] = await Promise.all([import('../bundle/export.js'), import('../bundle/model-view.js')]);
      const client = await cli.client();
      const text = formatData(exportBundle(await readModel(client)), 'yaml');
      if (opts.filename === undefined) return cli.io.stdout(text);
      await writeFile(opts.filename, text).catch((e: unknown) => {
        throw new CliError(`cannot write bundle to "${opts.filename}": ${errorMessage(e)}`);
      });
      cli.io.stderr(`Bundle successfully exported to ${opts.filename}\n`);
    });

  program
    .command('diff-bundle')
    .summary('Compare a bundle with the model.')
    .description(
      'Show how the model differs from a bundle: applications missing on either side, options, constraints, units and exposure that differ, and relations only one side has.',
    )
    .argument('<bundle>', 'a bundle file, or a directory holding bundle.yaml')
    .action(async (path: string) => {
      const [{ diffBundle }, { loadBundle }, { readModel }, { charmhubFetcher }] = await Promise.all([
        import('../bundle/diff.js'),
        import('../bundle/load.js'),
        import('../bundle/model-view.js'),
        import('../bundle/charmhub-charms.js'),
      ]);
      const { read, charmOf } = await loadBundle(path, 'diff', charmhubFetcher(cli));
      const client = await cli.client();
      cli.io.stdout(formatData(diffBundle(read.bundle, charmOf, await readModel(client)), 'yaml'));
    });
}
