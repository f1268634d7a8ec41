// consume and remove-saas: an offer of another model of the controller, taken into this one as a
// remote application (Juju 3.6's cmd/juju/application/consume.go and removesaas.go).
import type { Command } from 'commander';
import type { EntityResult } from '#shared/api/requests.js';
import { OFFER_OWNER, parseOfferUrl } from '#shared/domain/cross-model.js';
import { isDroverError } from '#shared/domain/errors.js';
import type { Cli } from '../context.js';
import { CliError, silentFailure, UsageError } from '../errors.js';

export function registerConsume(program: Command, cli: Cli): void {
  program
    .command('consume')
    .summary('Add a remote offer to the model.')
    .description('Add an offer of another model as a remote application (SAAS) that applications of this model can relate to.')
    .argument('[offer-url]', '[<controller>:][<owner>/]<model>.<offer>')
    .argument('[local-name]', 'the name of the remote application here (default: the offer name)')
    .addHelpText('after', '\nExamples:\n  drover consume othermodel.mysql\n  drover consume admin/othermodel.mysql sql')
    .action(async (arg: string | undefined, alias: string | undefined) => {
      if (arg === undefined) throw new UsageError('no remote offer specified');
      let url;
      try {
        url = parseOfferUrl(arg);
      } catch (e) {
        if (isDroverError(e)) throw new UsageError(e.message);
        throw e;
      }
      const { controller } = await cli.target();
      if (url.controller !== undefined && url.controller !== controller)
        throw new CliError(`cannot consume an offer of controller "${url.controller}": drover relates models of one controller only`);
      if (url.owner !== undefined && url.owner !== OFFER_OWNER) throw new CliError(`application offer "${arg}" not found`);
      const client = await cli.client();
      const { name } = await client.post<'consume', { name: string }>('consume', {
        model: url.model,
        offer: url.offer,
        ...(alias !== undefined ? { alias } : {}),
      });
      cli.io.stderr(`Added ${arg} as ${name}\n`);
    });

  program
    .command('remove-saas')
    .summary('Remove consumed applications (SAAS) from the model.')
    .argument('<saas-application-names...>', 'remote applications')
    .addHelpText('after', '\nExamples:\n  drover remove-saas mysql\n  drover remove-saas mysql logging')
    .action(async (names: string[]) => {
      const client = await cli.client();
      const { results } = await client.post<'remove-saas', { results: EntityResult[] }>('remove-saas', { names });
      for (const result of results) cli.io.stderr(`${result.message}\n`);
      if (results.some((r) => !r.ok)) throw silentFailure();
    });
}
