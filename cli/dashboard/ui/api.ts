// The page's only way out: GETs of the dashboard's proxy (cli/dashboard/server.ts), each with the
// session key from the URL's fragment. The proxy adds the controller's credentials; the page never
// sees them.
import { assembleStatus, MAX_PAGE_ENTITIES, type StatusPage } from '#shared/domain/status-page.js';
import type { StatusDoc } from '#shared/domain/status-document.js';
import type { StuckEntity } from '#shared/domain/stuck-entity.js';
import { KEY_HEADER } from './key-header.js';

const key = new URLSearchParams(location.hash.slice(1)).get('key') ?? '';

export class ApiFailure extends Error {}

export async function read<T>(operation: string, query: Record<string, string> = {}): Promise<T> {
  const response = await fetch(`/api/${operation}?${new URLSearchParams(query)}`, { headers: { [KEY_HEADER]: key } });
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  if (!response.ok) throw new ApiFailure(body.error?.message ?? `HTTP ${response.status}`);
  return body as T;
}

/** The whole model's status, a page at a time as `drover status` reads it (cli/status/read-pages.ts). */
export async function readStatus(): Promise<StatusDoc> {
  const pages: StatusPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await read<StatusPage>('status', { limit: String(MAX_PAGE_ENTITIES), ...(cursor ? { cursor } : {}) });
    pages.push(page);
    cursor = page.cursor;
  } while (cursor);
  return assembleStatus(pages);
}

export type { StuckEntity };

export const readStuck = () => read<StuckEntity[]>('stuck');
