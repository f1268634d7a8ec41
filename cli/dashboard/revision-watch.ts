// One watch of the model's revision (GET /v1/model-revision, one item on the controller) for every
// open page of this dashboard: it polls only while at least one page listens, and tells each of
// them every revision it reads, so pages re-read the model only when it changed
// (docs/dashboard.md, "What it shows"). A controller without the route (older than the revision) is told
// once as `unsupported`, and the pages poll the model as they did before.
import { isMissingRoute, type ApiClient } from '../client.js';
import { errorMessage } from '#shared/domain/errors.js';

/** How often the revision is read while a page listens: the most a change waits before pages hear of it. */
export const REVISION_POLL_MS = 2_000;

export type RevisionNews =
  | { kind: 'revision'; revision: number }
  | { kind: 'unsupported' }
  /** The controller could not be asked; the next poll tries again. */
  | { kind: 'error'; message: string };

export type RevisionListener = (news: RevisionNews) => void;

export interface RevisionWatch {
  /** Listens until the returned function is called; hears the latest news at once if there is any. */
  listen(listener: RevisionListener): () => void;
  close(): void;
}

export function watchRevision(client: Pick<ApiClient, 'get'>, intervalMs = REVISION_POLL_MS): RevisionWatch {
  const listeners = new Set<RevisionListener>();
  let latest: RevisionNews | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let polling = false;
  let closed = false;

  const tell = (news: RevisionNews) => {
    latest = news;
    for (const listener of [...listeners]) listener(news);
  };
  const poll = async () => {
    timer = undefined;
    polling = true;
    try {
      const answer = await client.get<{ revision: number }>('model-revision');
      tell({ kind: 'revision', revision: answer.revision });
    } catch (e) {
      if (isMissingRoute(e)) return tell({ kind: 'unsupported' });
      tell({ kind: 'error', message: errorMessage(e) });
    } finally {
      polling = false;
    }
    schedule();
  };
  const schedule = () => {
    if (closed || timer || polling || latest?.kind === 'unsupported') return;
    // No page listens: no reads at all until one does, and what was read last is forgotten.
    if (listeners.size === 0) return void (latest = undefined);
    timer = setTimeout(() => void poll(), latest ? intervalMs : 0);
  };

  return {
    listen(listener) {
      listeners.add(listener);
      if (latest) listener(latest);
      schedule();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && timer) {
          clearTimeout(timer);
          timer = undefined;
          if (latest?.kind !== 'unsupported') latest = undefined;
        }
      };
    },
    close() {
      closed = true;
      clearTimeout(timer);
      listeners.clear();
    },
  };
}
