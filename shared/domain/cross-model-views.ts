// How offers and remote applications are shown, in Juju 3.6's keys: `offers`/`show-offer`/
// `find-offers` (https://github.com/juju/juju/blob/3.6/cmd/juju/crossmodel/list.go, ListOfferItem)
// and status' `offers` and `application-endpoints` sections
// (https://github.com/juju/juju/blob/3.6/cmd/juju/status/formatted.go, offerStatus and
// remoteApplicationStatus). Kept apart from the rest of status so that each section is one function.
import type { Application, StatusInfo } from './entities.js';
import { offerUrl, type Offer, type OfferedEndpoint, type RemoteApplication } from './cross-model.js';
import { formatSince } from './status.js';

export interface EndpointView {
  interface: string;
  role: string;
}

/** Endpoints keyed by name, as Juju's `map[string]RemoteEndpoint`. */
export const endpointsView = (endpoints: OfferedEndpoint[]): Record<string, EndpointView> =>
  Object.fromEntries(endpoints.map((ep) => [ep.name, { interface: ep.interface, role: ep.role }]));

/** One offer as `offers --format yaml` shows it (keyed by the offer's name). */
export interface OfferListItem {
  application: string;
  store: string;
  charm?: string;
  'offer-url': string;
  endpoints: Record<string, EndpointView>;
  connections?: { 'source-model-uuid'?: string; username: string; 'relation-id'?: number; endpoint: string }[];
}

export function offerListItem(offer: Offer, modelName: string, controller: string, application?: Application): OfferListItem {
  return {
    application: offer.application,
    store: controller,
    ...(application ? { charm: application.charmUrl } : {}),
    'offer-url': offerUrl(modelName, offer.name),
    endpoints: endpointsView(offer.endpoints),
    ...(offer.connections.length > 0
      ? { connections: offer.connections.map(() => ({ username: 'admin', endpoint: offer.endpoints[0]?.name ?? '' })) }
      : {}),
  };
}

/** Status' `offers` entry. */
export interface OfferStatusView {
  application: string;
  charm?: string;
  'total-connected-count': number;
  'active-connected-count': number;
  endpoints: Record<string, EndpointView>;
}

export function offerStatusView(offer: Offer, application?: Application): OfferStatusView {
  return {
    application: offer.application,
    ...(application ? { charm: application.charmUrl } : {}),
    'total-connected-count': offer.connections.length,
    'active-connected-count': offer.connections.length,
    endpoints: endpointsView(offer.endpoints),
  };
}

/** What a remote application's status is read from: its offer and the offered application, if they still exist. */
export interface RemoteSource {
  offer?: Offer;
  application?: Application;
}

/** Status' `application-endpoints` entry (a SAAS). */
export interface RemoteApplicationStatusView {
  url: string;
  endpoints: Record<string, EndpointView>;
  life?: string;
  'application-status': { current: string; message?: string; since: string };
  relations?: Record<string, string[]>;
}

/**
 * `relations`: for each of its endpoints, the applications of this model related through it.
 * Its status is the offered application's as its own model shows it when set; an offer removed
 * is Juju's `terminated`.
 */
export function remoteApplicationStatusView(
  saas: RemoteApplication,
  source: RemoteSource,
  relations: Record<string, string[]>,
): RemoteApplicationStatusView {
  const status: StatusInfo = !source.offer
    ? { current: 'terminated', message: 'offer has been removed', since: saas.createdAt }
    : (source.application?.status ?? { current: 'unknown', since: saas.createdAt });
  return {
    url: saas.url,
    endpoints: endpointsView(saas.endpoints),
    ...(saas.life !== 'alive' ? { life: saas.life } : {}),
    'application-status': {
      current: status.current,
      ...(status.message ? { message: status.message } : {}),
      since: formatSince(status.since),
    },
    ...(Object.keys(relations).length > 0 ? { relations } : {}),
  };
}
