// relate (Juju 2's name; Juju 1's add-relation and Juju 3's integrate) and remove-relation
// (Juju 1's destroy-relation).
import type { Command } from 'commander';
import type { Cli } from '../context.js';
import { ApiError, CliError, UsageError } from '../errors.js';

interface RelateResponse {
  key: string;
  id: number;
  pending: string[];
}

/**
 * Juju re-prints a duplicate-relation error with each `: `-separated part on its own line and a
 * pointer to where the existing relations are shown (cmd/juju/application/addrelation.go).
 */
function duplicateRelation(error: ApiError): CliError {
  return new CliError(`\n${error.message.split(': ').join('\n')}\n\nUse 'drover status --relations' to view the current relations.`);
}

export function registerRelations(program: Command, cli: Cli): void {
  program
    .command('relate')
    .aliases(['add-relation', 'integrate'])
    .summary('Relate two applications.')
    .description('Relate two applications; endpoints are inferred unless given as <application>:<endpoint>.')
    .argument('[endpoints...]', 'two applications or endpoints')
    .addHelpText(
      'after',
      '\nExamples:\n  drover relate wordpress mysql\n  drover relate wordpress:db mysql:server\n  drover relate wordpress logging',
    )
    .action(async (endpoints: string[]) => {
      if (endpoints.length !== 2) throw new UsageError('a relation must involve two applications');
      const client = await cli.client();
      let result: RelateResponse;
      try {
        result = await client.post<'relate', RelateResponse>('relate', { endpoints });
      } catch (e) {
        if (e instanceof ApiError && e.code === 'already-exists') throw duplicateRelation(e);
        throw e;
      }
      // Required relations now satisfied, or still missing, for either application.
      for (const line of result.pending) cli.io.stderr(`${line}\n`);
    });

  program
    .command('remove-relation')
    .alias('destroy-relation')
    .summary('Remove a relation.')
    .description('Remove a relation, by its two endpoints or its id (see "drover status --relations").')
    .argument('[endpoints...]', 'two applications or endpoints, or a relation id')
    // Juju 3.6's flags: a relation's removal waits on no agent in drover, so --force changes
    // nothing; drover asks no confirmation, so --no-prompt neither.
    .option('--force', 'remove the relation even if its units never answer')
    .option('--no-prompt', 'do not ask for confirmation (drover does not ask before removals)')
    .addHelpText(
      'after',
      '\nExamples:\n  drover remove-relation wordpress mysql\n  drover remove-relation wordpress:db mysql:server\n  drover remove-relation 3',
    )
    .action(async (args: string[]) => {
      if (args.length === 1 && !/^(0|[1-9][0-9]*)$/.test(args[0]!)) {
        throw new UsageError(`invalid relation id "${args[0]}"; give a relation id or two endpoints`);
      }
      if (args.length !== 1 && args.length !== 2) throw new UsageError('a relation must involve two applications');
      const client = await cli.client();
      await client.post('remove-relation', args.length === 1 ? { id: Number(args[0]) } : { endpoints: args });
    });
}
