// `resources <application|unit>` and `attach-resource <application> name=path` (Juju 3.6's
// cmd/juju/resource): the charm's declared resources and the revisions in use; a new revision of
// a file resource, uploaded as deploy --resource uploads one (cli/resource-upload.ts). The units
// then run upgrade-charm, and resource-get hands their hooks the new file.
import { Option, type Command } from 'commander';
import { isValidUnitName } from '#shared/domain/names.js';
import type { Cli } from '../context.js';
import { UsageError } from '../errors.js';
import { printData, type DataFormat } from '../output.js';
import { resourceFiles, uploadResources } from '../resource-upload.js';
import { formattedResources, resourcesTable, type ResourcesAnswer } from '../resources-view.js';

export function registerResources(program: Command, cli: Cli): void {
  program
    .command('resources')
    .alias('list-resources')
    .description('Show the resources of an application or unit: those its charm declares, and the revision it uses of each.')
    .argument('<application-or-unit>', 'an application (mysql) or one of its units (mysql/0)')
    .addOption(new Option('--format <format>', 'output format').choices(['tabular', 'yaml', 'json']).default('tabular'))
    .addHelpText('after', '\nExamples:\n  drover resources mysql\n  drover resources mysql/0 --format yaml')
    .action(async (target: string, opts: { format: 'tabular' | DataFormat }) => {
      const unit = isValidUnitName(target);
      const application = unit ? target.slice(0, target.lastIndexOf('/')) : target;
      const client = await cli.client();
      const answer = await client.get<ResourcesAnswer>('resources', { application });
      const resources = formattedResources(answer);
      if (opts.format !== 'tabular') return printData(cli.io, resources.length ? { resources } : {}, opts.format);
      if (!resources.length) return cli.io.stderr('No resources to display.\n');
      cli.io.stdout(resourcesTable(resources, unit, cli.colour));
    });

  program
    .command('attach-resource')
    .description("Upload a file as the next revision of an application's resource; its units run upgrade-charm.")
    .argument('<application>', 'the application')
    .argument('<resource=path...>', 'the resource, as its charm names it, and the file to upload')
    .addHelpText('after', '\nExamples:\n  drover attach-resource mysql software=./mysql.tar.gz')
    .action(async (application: string, args: string[]) => {
      if (!args.length) throw new UsageError('missing resource');
      const client = await cli.client({ timeoutMs: 300_000 });
      const { declared } = await client.get<ResourcesAnswer>('resources', { application });
      const files = await resourceFiles(declared, args);
      await client.post('attach-resource', { application, resources: await uploadResources(client, files) });
    });
}
