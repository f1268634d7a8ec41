// Status' cross-model sections as Juju 3.6's tabular status prints them
// (https://github.com/juju/juju/blob/3.6/cmd/juju/status/output_tabular.go, printRemoteApplications
// and printOffers): `SAAS` right after the model, `Offer` after the machines.
import { compareNatural } from '#shared/domain/natural-order.js';
import { statusStyle, styled, type Cell } from '../table.js';
import type { CrossModelSections } from './cross-model.js';

export const SAAS_HEADER = ['SAAS', 'Status', 'Store', 'URL'];
export const OFFER_HEADER = ['Offer', 'Application', 'Charm', 'Rev', 'Connected', 'Endpoint', 'Interface', 'Role'];

interface SaasDoc {
  url: string;
  'application-status': { current: string };
}

interface OfferDoc {
  application: string;
  charm?: string;
  'total-connected-count': number;
  'active-connected-count': number;
  endpoints: Record<string, { interface: string; role: string }>;
}

/**
 * One row per SAAS: its status, its store (`local` for an offer of this controller: the URL
 * names no controller) and the offer's URL without that controller.
 */
export function saasRows(endpoints: CrossModelSections['application-endpoints']): Cell[][] {
  return Object.keys(endpoints)
    .sort(compareNatural)
    .map((name) => {
      const saas = endpoints[name] as SaasDoc;
      const colon = saas.url.indexOf(':');
      const [store, path] = colon >= 0 ? [saas.url.slice(0, colon), saas.url.slice(colon + 1)] : ['local', saas.url];
      const current = saas['application-status'].current;
      return [name, styled(current, statusStyle(current)), store, path];
    });
}

/** The charm's name and revision from its URL (`local:testdb-0`, or drover's stored `local:<series>/testdb-0`). */
function charmNameAndRevision(url: string | undefined): [string, string] {
  const match = /([a-z][a-z0-9-]*)-(\d+)$/.exec(url ?? '');
  return match ? [match[1]!, match[2]!] : ['', ''];
}

/** One row per endpoint of each offer, the offer's own columns on its first only, endpoints by name. */
export function offerRows(offers: CrossModelSections['offers']): Cell[][] {
  const rows: Cell[][] = [];
  for (const name of Object.keys(offers).sort(compareNatural)) {
    const offer = offers[name] as OfferDoc;
    const [charm, rev] = charmNameAndRevision(offer.charm);
    const connected = `${offer['active-connected-count']}/${offer['total-connected-count']}`;
    for (const [i, endpoint] of Object.keys(offer.endpoints).sort().entries()) {
      const { interface: iface, role } = offer.endpoints[endpoint]!;
      rows.push(
        i === 0 ? [name, offer.application, charm, rev, connected, endpoint, iface, role] : ['', '', '', '', '', endpoint, iface, role],
      );
    }
  }
  return rows;
}
