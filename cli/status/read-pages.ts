// The whole model's status as the API sends it, a page at a time (shared/domain/status-page.ts):
// for `drover status`, and for every command that looks at the whole model (destroy-model, bundles,
// resolved --all), so that none of them asks for a document too big for one response.
import type { ApiClient } from '../client.js';
import { assembleStatus, MAX_PAGE_ENTITIES, type StatusPage } from '#shared/domain/status-page.js';
import type { StatusDoc } from '#shared/domain/status-document.js';

/** Every page, each given to `each` as it arrives. */
export async function readStatusPages(client: ApiClient, each: (page: StatusPage) => void = () => {}): Promise<StatusPage[]> {
  const pages: StatusPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.get<StatusPage>('status', { limit: String(MAX_PAGE_ENTITIES), ...(cursor ? { cursor } : {}) });
    pages.push(page);
    each(page);
    cursor = page.cursor;
  } while (cursor);
  return pages;
}

/** The whole document, put together from its pages. */
export const readWholeStatus = async (client: ApiClient): Promise<StatusDoc> => assembleStatus(await readStatusPages(client));
