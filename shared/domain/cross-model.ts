// Cross-model relations: an offer of an application's endpoints in one model, and the remote
// application (Juju's "SAAS") that consuming it makes in another model of the same controller.
// Names and URLs follow Juju 3.6's grammar
// (https://github.com/juju/juju/blob/3.6/core/crossmodel/offerurl.go,
// https://github.com/juju/juju/blob/3.6/cmd/juju/crossmodel/offer.go).
import type { Role } from './charm.js';
import { invalidArgument } from './errors.js';
import type { Life } from './life.js';
import { isValidApplicationName, isValidEndpointName } from './names.js';

/** Juju's model names (juju/names): lower-case letters, digits and hyphens. */
const MODEL_NAME = /^[a-z0-9]+[a-z0-9-]*$/;
/** Juju's user names, as an offer URL's owner (juju/names' user.go, local users). */
const OWNER = /^[a-zA-Z0-9][a-zA-Z0-9.+-]*[a-zA-Z0-9]$|^[a-zA-Z0-9]$/;

/** The owner drover's offer URLs name: every model of a drover controller is admin's. */
export const OFFER_OWNER = 'admin';

/** An endpoint as an offer shows it: its name, role and interface (`offers`, status' `endpoints`). */
export interface OfferedEndpoint {
  name: string;
  role: Role;
  interface: string;
}

/** An offer, in the offering model: what another model may consume and relate to. */
export interface Offer {
  name: string;
  application: string;
  /** The offered endpoints, in the order the user named them. */
  endpoints: OfferedEndpoint[];
  /** Keys (`<model key>#<saas>`) of the remote applications that consume it now. */
  consumers: string[];
  /**
   * Keys (`<model key>#<relation key>`) of the relations made through it: Juju's offer
   * connections, which hold the offer (`remove-offer` needs `--force` while there are any).
   */
  connections: string[];
  createdAt: string;
}

/** A remote application (Juju's SAAS), in the consuming model: an offer consumed under an alias. */
export interface RemoteApplication {
  name: string;
  life: Life;
  /** `<owner>/<model>.<offer>`: status' `url`. */
  url: string;
  /** The offering model's name and key (where the offer's items are), and the offer's name. */
  offerModel: string;
  offerModelKey: string;
  offer: string;
  /** The offered application's name in its own model. */
  application: string;
  endpoints: OfferedEndpoint[];
  /** Keys of the relations it is in, as an application's. */
  relations: string[];
  createdAt: string;
}

/** `offer`'s first argument: `[<model>.]<application>:<endpoint>[,<endpoint>...]`. */
export interface OfferArg {
  model?: string;
  application: string;
  endpoints: string[];
}

export function parseOfferArg(arg: string): OfferArg {
  if (!arg.includes(':')) throw invalidArgument('endpoints must conform to format "<application-name>:<endpoint-name>[,...]"');
  const colon = arg.indexOf(':');
  const head = arg.slice(0, colon);
  const list = arg.slice(colon + 1);
  const dot = head.indexOf('.');
  const model = dot >= 0 ? head.slice(0, dot) : undefined;
  const application = dot >= 0 ? head.slice(dot + 1) : head;
  if (model !== undefined && !MODEL_NAME.test(model)) throw invalidArgument(`model name "${model}" not valid`);
  if (!isValidApplicationName(application)) throw invalidArgument(`application name "${application}" not valid`);
  if (list === '') throw invalidArgument(`specify endpoints for ${application}`);
  const endpoints = list.split(',');
  for (const endpoint of endpoints) {
    if (!isValidEndpointName(endpoint)) throw invalidArgument(`endpoint name "${endpoint}" not valid`);
  }
  return { ...(model !== undefined ? { model } : {}), application, endpoints: [...new Set(endpoints)] };
}

/** An offer URL: `[<controller>:][<owner>/]<model>.<offer>`. */
export interface OfferUrl {
  controller?: string;
  owner?: string;
  model: string;
  offer: string;
}

const invalidForm = (url: string) => invalidArgument(`application offer URL has invalid form, must be [<user/]<model>.<appname>: "${url}"`);

export function parseOfferUrl(url: string): OfferUrl {
  const parts = url.split(':');
  if (parts.length > 2 || url.startsWith(':')) throw invalidForm(url);
  const [controller, rest] = parts.length === 2 ? [parts[0]!, parts[1]!] : [undefined, parts[0]!];
  const slash = rest.indexOf('/');
  const owner = slash >= 0 ? rest.slice(0, slash) : undefined;
  const path = slash >= 0 ? rest.slice(slash + 1) : rest;
  if (path.includes('/')) throw invalidForm(url);
  const dot = path.indexOf('.');
  const model = dot >= 0 ? path.slice(0, dot) : path;
  const offer = dot >= 0 ? path.slice(dot + 1) : '';
  if (model === '') throw invalidArgument('application offer URL is missing model');
  if (offer === '') throw invalidArgument('application offer URL is missing application');
  if (owner !== undefined && !OWNER.test(owner)) throw invalidArgument(`model namespace "${owner}" not valid`);
  if (!MODEL_NAME.test(model)) throw invalidArgument(`model name "${model}" not valid`);
  if (!isValidApplicationName(offer)) throw invalidArgument(`application name "${offer}" not valid`);
  return { ...(controller ? { controller } : {}), ...(owner !== undefined ? { owner } : {}), model, offer };
}

/** The URL an offer is known by, as `offer` prints it and status shows it. */
export const offerUrl = (model: string, offer: string) => `${OFFER_OWNER}/${model}.${offer}`;

/** How an offer names a consumer or a connection: the consuming model's key and the name there. */
export const crossModelKey = (modelKey: string, name: string) => `${modelKey}#${name}`;

/**
 * A relation across models names the other side's units by its own name for their application
 * (the SAAS alias; `remote-<hex>` in the offering model), with their numbers: `dbalias/0` in the
 * consuming model is `testdb/0` in the offering one (Juju's remote units).
 */
export const unitAsSeenHere = (side: { alias: string }, unitThere: string) => `${side.alias}/${unitThere.split('/')[1] ?? ''}`;

/** The other model's name of a unit named here by the alias; undefined for this model's own units. */
export function unitThere(side: { alias: string; application: string }, unitHere: string): string | undefined {
  const [application, number] = unitHere.split('/');
  return application === side.alias && number !== undefined ? `${side.application}/${number}` : undefined;
}
