// The page's only way out: the dashboard's proxy (cli/dashboard/server.ts), with the model the page
// shows in the user API's model header (none: the model `drover dashboard` was started on). The
// browser sends the session's cookie itself (HttpOnly: this script never sees it); a change is a
// POST that also carries the page's own token from its <meta>. The proxy checks the model's name
// and adds the controller's credentials; the page never sees them.
import { MODEL_HEADER } from '#shared/api/model-header.js';
import { assembleStatus, MAX_PAGE_ENTITIES, type StatusPage } from '#shared/domain/status-page.js';
import type { StatusDoc } from '#shared/domain/status-document.js';
import type { StuckEntity } from '#shared/domain/stuck-entity.js';
import { PAGE_TOKEN_HEADER, PAGE_TOKEN_META } from './page-token.js';

const pageToken = document.querySelector(`meta[name="${PAGE_TOKEN_META}"]`)?.getAttribute('content') ?? '';

export class ApiFailure extends Error {}

/** The page's headers for the model it shows. */
export const modelHeaders = (model: string | undefined): Record<string, string> => (model ? { [MODEL_HEADER]: model } : {});

export async function read<T>(operation: string, query: Record<string, string> = {}, model?: string): Promise<T> {
  return answerOf<T>(await fetch(`/api/${operation}?${new URLSearchParams(query)}`, { headers: modelHeaders(model) }));
}

/** A change (or a secret's content), as the CLI would send it: refused answers throw with the controller's words. */
export async function write<T>(operation: string, body: unknown, model?: string): Promise<T> {
  const headers = { ...modelHeaders(model), [PAGE_TOKEN_HEADER]: pageToken, 'content-type': 'application/json' };
  return answerOf<T>(await fetch(`/api/${operation}`, { method: 'POST', headers, body: JSON.stringify(body) }));
}

async function answerOf<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  if (!response.ok) throw new ApiFailure(body.error?.message ?? `HTTP ${response.status}`);
  return body as T;
}

/** The whole model's status, a page at a time as `drover status` reads it (cli/status/read-pages.ts). */
export async function readStatus(model?: string): Promise<StatusDoc> {
  const pages: StatusPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await read<StatusPage>('status', { limit: String(MAX_PAGE_ENTITIES), ...(cursor ? { cursor } : {}) }, model);
    pages.push(page);
    cursor = page.cursor;
  } while (cursor);
  return assembleStatus(pages);
}

export type { StuckEntity };

/**
 * What the page uses of a model in the `models` answer (shared/api/model-summary.ts: the page's
 * tsconfig, without Node's types, cannot compile the entities that file reads).
 */
export interface ModelSummary {
  name: string;
  status: 'available' | 'destroying';
}

export const readStuck = (model?: string) => read<StuckEntity[]>('stuck', {}, model);

/** The controller's models (a read of the controller, whichever model the page shows). */
export const readModels = async () => (await read<{ models: ModelSummary[] }>('models')).models;
