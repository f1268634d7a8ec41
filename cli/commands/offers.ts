// offer, offers (list-offers), show-offer, find-offers and remove-offer: Juju 3.6's cross-model
// offer commands (https://github.com/juju/juju/tree/3.6/cmd/juju/crossmodel), their arguments,
// messages and output.
import { Option, type Command } from 'commander';
import { parseOfferArg, parseOfferUrl } from '#shared/domain/cross-model.js';
import type { EndpointView, OfferListItem } from '#shared/domain/cross-model-views.js';
import { isDroverError } from '#shared/domain/errors.js';
import type { Cli } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { formatData, type DataFormat } from '../output.js';
import { renderTable } from '../table.js';

type ListFormat = 'tabular' | 'summary' | DataFormat;

/** A domain error in the CLI's words: the argument was wrong, nothing was sent. */
function parsed<T>(parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (isDroverError(e)) throw new UsageError(e.message);
    throw e;
  }
}

/** `[<controller>:]<model>` for cli.client, from an offer URL's or an argument's parts. */
const modelTarget = (model: string | undefined, controller: string | undefined) =>
  model === undefined ? (controller ? `${controller}:` : undefined) : controller ? `${controller}:${model}` : model;

const endpointRows = (endpoints: Record<string, EndpointView>) => Object.keys(endpoints).sort();

/** `offers`' default table: one row per connection, or one empty row for an offer without (Juju's formatListEndpointsTabular). */
function offersTable(offers: Record<string, OfferListItem>): string {
  const rows = [['Offer', 'User', 'Relation ID', 'Status', 'Endpoint', 'Interface', 'Role', 'Ingress subnets']];
  for (const [name, offer] of Object.entries(offers)) {
    if (!offer.connections?.length) {
      rows.push([name, '-', '', '', '', '', '', '']);
      continue;
    }
    offer.connections.forEach((conn, i) => {
      const ep = offer.endpoints[conn.endpoint];
      rows.push([
        i === 0 ? name : '',
        conn.username,
        String(conn['relation-id'] ?? ''),
        'joined',
        conn.endpoint,
        ep?.interface ?? '',
        ep?.role ?? '',
        '',
      ]);
    });
  }
  return renderTable(rows, false);
}

/** `offers --format summary`: one row per endpoint (Juju's formatListEndpointsSummary). */
function offersSummary(offers: Record<string, OfferListItem>): string {
  const rows = [['Offer', 'Application', 'Charm', 'Connected', 'Store', 'URL', 'Endpoint', 'Interface', 'Role']];
  for (const [name, offer] of Object.entries(offers)) {
    endpointRows(offer.endpoints).forEach((ep, i) => {
      const { interface: iface, role } = offer.endpoints[ep]!;
      const connected = `${offer.connections?.length ?? 0}/${offer.connections?.length ?? 0}`;
      rows.push(
        i === 0
          ? [name, offer.application, offer.charm ?? '', connected, offer.store, offer['offer-url'], ep, iface, role]
          : ['', '', '', '', '', '', ep, iface, role],
      );
    });
  }
  return renderTable(rows, false);
}

export function registerOffers(program: Command, cli: Cli): void {
  program
    .command('offer')
    .summary('Offer application endpoints for use in other models.')
    .description('Offer endpoints of an application so that other models of the controller can consume and relate to them.')
    .argument('[endpoints]', '[<model-name>.]<application-name>:<endpoint-name>[,...]')
    .argument('[offer-name]', 'the name of the offer (default: the application name)')
    .option('-c, --controller <controller>', 'controller to operate in')
    .addHelpText('after', '\nExamples:\n  drover offer mysql:db\n  drover offer mymodel.mysql:db,log hosted-mysql')
    .action(async (arg: string | undefined, name: string | undefined, opts: { controller?: string }) => {
      if (arg === undefined) throw new UsageError('an offer must at least specify application endpoint');
      const offer = parsed(() => parseOfferArg(arg));
      const target = modelTarget(offer.model, opts.controller);
      const client = await cli.client(target !== undefined ? { model: target } : {});
      const { url } = await client.post<'offer', { url: string }>('offer', {
        application: offer.application,
        endpoints: offer.endpoints,
        name: name ?? offer.application,
      });
      cli.io.stderr(`Application "${offer.application}" endpoints [${offer.endpoints.join(', ')}] available at "${url}"\n`);
    });

  program
    .command('offers')
    .alias('list-offers')
    .summary('Lists shared endpoints.')
    .description("List the model's offers and their connections.")
    .argument('[offer-name]', 'only this offer')
    .addOption(new Option('--format <format>', 'output format').choices(['tabular', 'summary', 'json', 'yaml']).default('tabular'))
    .addHelpText('after', '\nExamples:\n  drover offers\n  drover offers --format yaml\n  drover offers -m othermodel mysql')
    .action(async (only: string | undefined, opts: { format: ListFormat }) => {
      const client = await cli.client();
      const { offers: all } = await client.get<{ offers: Record<string, OfferListItem> }>('offers');
      const offers = only === undefined ? all : Object.fromEntries(Object.entries(all).filter(([name]) => name === only));
      if (opts.format === 'json' || opts.format === 'yaml') return cli.io.stdout(formatData(offers, opts.format));
      if (Object.keys(offers).length === 0) return;
      cli.io.stdout(opts.format === 'summary' ? offersSummary(offers) : offersTable(offers));
    });

  program
    .command('show-offer')
    .summary('Shows extended information about the offered application.')
    .argument('<offer-url>', '[<controller>:][<owner>/]<model>.<offer>, or an offer of the current model')
    .addOption(new Option('--format <format>', 'output format').choices(['tabular', 'json', 'yaml']).default('tabular'))
    .addHelpText('after', '\nExamples:\n  drover show-offer default.mysql\n  drover show-offer admin/default.mysql --format yaml')
    .action(async (arg: string, opts: { format: 'tabular' | DataFormat }) => {
      const url = arg.includes('.') ? parsed(() => parseOfferUrl(arg)) : undefined;
      const target = url ? modelTarget(url.model, url.controller) : undefined;
      const client = await cli.client(target !== undefined ? { model: target } : {});
      const shown = await client.get<Record<string, { access: string; endpoints: Record<string, EndpointView> }>>('show-offer', {
        offer: url?.offer ?? arg,
      });
      if (opts.format !== 'tabular') return cli.io.stdout(formatData(shown, opts.format));
      const { controller } = await cli.target(target);
      const rows = [['Store', 'URL', 'Access', 'Description', 'Endpoint', 'Interface', 'Role']];
      for (const [offerUrl, offer] of Object.entries(shown)) {
        endpointRows(offer.endpoints).forEach((ep, i) => {
          const { interface: iface, role } = offer.endpoints[ep]!;
          rows.push(i === 0 ? [controller, offerUrl, offer.access, '', ep, iface, role] : ['', '', '', '', ep, iface, role]);
        });
      }
      cli.io.stdout(renderTable(rows, false));
    });

  program
    .command('find-offers')
    .summary('Find offered application endpoints.')
    .description('List the offers of every model of the controller that the filters match.')
    .option('--url <url>', 'only offers whose URL starts with this ([<owner>/]<model>[.<offer>])')
    .option('--interface <interface>', 'only offers with an endpoint of this interface')
    .addOption(new Option('--format <format>', 'output format').choices(['tabular', 'json', 'yaml']).default('tabular'))
    .addHelpText(
      'after',
      '\nExamples:\n  drover find-offers\n  drover find-offers --url admin/default\n  drover find-offers --interface mysql',
    )
    .action(async (opts: { url?: string; interface?: string; format: 'tabular' | DataFormat }) => {
      const client = await cli.client();
      const { offers: all } = await client.get<{ offers: Record<string, { access: string; endpoints: Record<string, EndpointView> }> }>(
        'find-offers',
      );
      const wanted = opts.url === undefined ? undefined : opts.url.includes('/') ? opts.url : `admin/${opts.url}`;
      const offers = Object.fromEntries(
        Object.entries(all).filter(
          ([url, offer]) =>
            (wanted === undefined || url.startsWith(wanted)) &&
            (opts.interface === undefined || Object.values(offer.endpoints).some((ep) => ep.interface === opts.interface)),
        ),
      );
      if (opts.format !== 'tabular') return cli.io.stdout(formatData(offers, opts.format));
      if (Object.keys(offers).length === 0) throw new CliError('no matching application offers found');
      const { controller } = await cli.target();
      const rows = [['Store', 'URL', 'Access', 'Interfaces']];
      for (const [url, offer] of Object.entries(offers)) {
        const interfaces = endpointRows(offer.endpoints).map((ep) => `${offer.endpoints[ep]!.interface}:${ep}`);
        rows.push([controller, url, offer.access, interfaces.join(', ')]);
      }
      cli.io.stdout(renderTable(rows, false));
    });

  program
    .command('remove-offer')
    .summary('Removes one or more offers specified by their URL.')
    .description('Remove offers. An offer with relations is removed only with --force, which removes its relations too.')
    .argument('<offer-urls...>', '[<controller>:][<owner>/]<model>.<offer>, or an offer of the current model')
    .option('--force', 'remove the offer even if it has relations')
    .option('-y, --no-prompt', 'do not ask for confirmation')
    .addHelpText('after', '\nExamples:\n  drover remove-offer default.mysql\n  drover remove-offer mysql --force -y')
    .action(async (args: string[], opts: { force?: boolean; prompt: boolean }) => {
      const targets = args.map((arg) => {
        const url = arg.includes('.') ? parsed(() => parseOfferUrl(arg)) : undefined;
        return { offer: url?.offer ?? arg, model: url ? modelTarget(url.model, url.controller) : undefined };
      });
      if (opts.force && opts.prompt) {
        cli.io.stderr(
          `WARNING! This command will remove offers: ${args.join(', ')}\nThis includes all relations to those offers.\n\nContinue [y/N]? `,
        );
        const answer = (await cli.io.readLine())?.trim().toLowerCase();
        if (answer !== 'y' && answer !== 'yes') throw new CliError('offer removal: aborted');
      }
      for (const target of targets) {
        const client = await cli.client(target.model !== undefined ? { model: target.model } : {});
        await client.post('remove-offer', { offer: target.offer, ...(opts.force ? { force: true } : {}) });
      }
    });
}
