// The model as the page knows it: status and stuck, when the page last confirmed they are current,
// and the last error. The dashboard's server watches the model's revision for every open page and
// tells each one every revision it reads (events.ts, cli/dashboard/revision-watch.ts), so the page
// reads status and stuck again only when the revision moved from the one it last read at, at most
// once per POLL_MS, and once a minute whatever it was told (what no write shows: an agent is lost
// when it has been silent long enough). Against a controller without the revision (an older one)
// the page polls, as it did before. Status is paged, so even a 100,000-unit model is read as
// `drover status` reads it (docs/dashboard.md, "What it shows").
import type { StatusDoc } from '#shared/domain/status-document.js';
import { useEffect, useState } from 'preact/hooks';
import { readStatus, readStuck, type StuckEntity } from './api.js';
import { followEvents, type ServerNews } from './events.js';
import { errorMessage } from '#shared/domain/errors.js';

/** Polling's interval, and the least time between two reads when told of changes; `#poll=<ms>` in the URL changes it (tests). */
const requested = Number(new URLSearchParams(location.hash.slice(1)).get('poll'));
export const POLL_MS = Number.isFinite(requested) && requested >= 250 ? requested : 5_000;
const HIDDEN_INTERVAL_MS = 60_000;
/** A read even when the revision stayed: a safety net for what no write shows, and for a lost event. */
const SAFETY_MS = 60_000;
/** How long before following the server's events again once they broke off. */
const RECONNECT_MS = 5_000;

/** Told of changes by the server (`pushed`), or reading again every few seconds (`polled`). */
export type Liveness = 'pushed' | 'polled';

export interface ModelState {
  doc?: StatusDoc;
  stuck: StuckEntity[];
  /** When the page last knew it showed the model as it is: a read, or a revision it had already read. */
  updated?: Date;
  error?: string;
  live: Liveness;
  /** The revision the server told before the shown read began (pushed only). */
  revision?: number;
}

/** `model`: the one the page chose (its `#model=`); none, the one `drover dashboard` was started on. */
export function useModel(model?: string): ModelState {
  const [state, setState] = useState<ModelState>({ stuck: [], live: 'pushed' });
  useEffect(() => {
    let stopped = false;
    let live: Liveness = 'pushed';
    /** The revision told before the last read began: what is shown is at least that new. */
    let shown: number | undefined;
    /** The last revision the server told. */
    let told: number | undefined;
    let reading = false;
    let lastRead = 0;
    let readTimer: ReturnType<typeof setTimeout> | undefined;
    let safetyTimer: ReturnType<typeof setTimeout> | undefined;
    let reconnectTimer: ReturnType<typeof setTimeout> | undefined;
    let events: AbortController | undefined;

    const fail = (message: string) => setState((s) => ({ ...s, error: message }));
    const confirmed = () => setState(({ error: _error, ...s }) => ({ ...s, updated: new Date() }));

    const read = async () => {
      clearTimeout(readTimer);
      readTimer = undefined;
      if (reading) return;
      reading = true;
      lastRead = Date.now();
      const at = told;
      try {
        const [doc, stuck] = await Promise.all([readStatus(model), readStuck(model)]);
        if (stopped) return;
        shown = at;
        setState({ doc, stuck, updated: new Date(), live, ...(at !== undefined ? { revision: at } : {}) });
      } catch (e) {
        if (!stopped) fail(errorMessage(e));
      } finally {
        reading = false;
      }
      if (!stopped) afterRead();
    };
    /** Polling: the next poll. Pushed: the safety re-read, and at once another if told of a change meanwhile. */
    const afterRead = () => {
      clearTimeout(safetyTimer);
      if (live === 'polled') {
        readTimer = setTimeout(() => void read(), document.hidden ? HIDDEN_INTERVAL_MS : POLL_MS);
        return;
      }
      safetyTimer = setTimeout(() => void read(), SAFETY_MS);
      if (told !== shown) readSoon();
    };
    /** A read as soon as POLL_MS after the last allows; none while hidden (showing the page asks again). */
    const readSoon = () => {
      if (readTimer || reading || document.hidden) return;
      readTimer = setTimeout(() => void read(), Math.max(0, lastRead + POLL_MS - Date.now()));
    };
    const poll = () => {
      live = 'polled';
      events?.abort();
      clearTimeout(safetyTimer);
      setState((s) => ({ ...s, live }));
      if (!reading) void read();
    };
    const onNews = (news: ServerNews) => {
      if (news.kind === 'unsupported') return poll();
      if (news.kind === 'error') return fail(news.message);
      told = news.revision;
      if (told !== shown) readSoon();
      else if (!reading && !readTimer) confirmed();
    };
    const follow = () => {
      if (stopped || live === 'polled' || document.hidden || events) return;
      const controller = (events = new AbortController());
      followEvents(model, controller.signal, onNews)
        .catch((e: unknown) => {
          if (!controller.signal.aborted) fail(errorMessage(e));
        })
        .finally(() => {
          if (events === controller) events = undefined;
          if (!controller.signal.aborted && !stopped && live === 'pushed') reconnectTimer = setTimeout(follow, RECONNECT_MS);
        });
    };
    const onVisibility = () => {
      if (stopped) return;
      if (document.hidden) {
        // No events for a hidden page: its server stops asking when no page listens.
        events?.abort();
        events = undefined;
        return;
      }
      if (live === 'polled') {
        if (!reading) void read();
        return;
      }
      // The first revision told says whether the page missed anything.
      follow();
    };

    void read();
    follow();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      stopped = true;
      for (const timer of [readTimer, safetyTimer, reconnectTimer]) clearTimeout(timer);
      events?.abort();
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [model]);
  return state;
}
