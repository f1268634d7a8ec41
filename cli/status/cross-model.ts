// Status' cross-model sections (`application-endpoints`, `offers`), read apart from the paged
// document and put where Juju 3.6's formatted status has them: after `applications`
// (https://github.com/juju/juju/blob/3.6/cmd/juju/status/formatted.go). Both are left out when
// empty, as Juju's `omitempty` does.
import type { ApiClient } from '../client.js';
import type { StatusDoc } from '#shared/domain/status-document.js';

export interface CrossModelSections {
  'application-endpoints': Record<string, unknown>;
  offers: Record<string, unknown>;
}

export function withCrossModelSections(doc: StatusDoc, sections: CrossModelSections): StatusDoc {
  const extra: Record<string, unknown> = {};
  if (Object.keys(sections['application-endpoints']).length > 0) extra['application-endpoints'] = sections['application-endpoints'];
  if (Object.keys(sections.offers).length > 0) extra.offers = sections.offers;
  if (Object.keys(extra).length === 0) return doc;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) {
    out[key] = value;
    if (key === 'applications') Object.assign(out, extra);
  }
  return out as StatusDoc;
}

export async function readCrossModelSections(client: ApiClient): Promise<CrossModelSections> {
  return client.get<CrossModelSections>('cross-model-status');
}
