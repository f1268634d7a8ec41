// The debug-log cursor on AWS, opaque to clients: a time `t` (ms) and the events at or after `t`
// already seen, as short digests of their CloudWatch eventIds with their offset from `t`. It
// means: every matching event before `t` has been seen, and of those at or after `t`, exactly
// these. So a tail that reads again from `t` repeats none of them and loses none that share a
// millisecond with one it saw, or that CloudWatch ingested late but still at or after `t`.
import { createHash } from 'node:crypto';
import { invalidArgument } from '../domain/errors.js';

export interface SeenEvent {
  timestamp: number;
  digest: string;
}

export interface CloudWatchCursor {
  t: number;
  seen: SeenEvent[];
}

const PREFIX = 'cw';
const DIGEST_LENGTH = 6;
/**
 * Bounds the cursor (and with it the request's query string: shared/api/requests.ts allows 4000
 * characters): ~10 characters an event. When more were seen, `t` moves up past the oldest; the
 * price is that a late event before the new `t` can be missed, never that one is shown twice.
 */
export const MAX_SEEN_EVENTS = 350;

/** 36 bits of the eventId's hash: within the few seconds a cursor covers, collisions do not happen in practice. */
export const eventDigest = (eventId: string) => createHash('sha256').update(eventId).digest('base64url').slice(0, DIGEST_LENGTH);

/** A cursor at `t` keeping the seen events at or after it, moving `t` up if there are too many. */
export function cursorAt(t: number, seen: SeenEvent[]): CloudWatchCursor {
  let kept = seen.filter((e) => e.timestamp >= t).sort((a, b) => a.timestamp - b.timestamp);
  kept = [...new Map(kept.map((e) => [`${e.timestamp}.${e.digest}`, e])).values()];
  if (kept.length <= MAX_SEEN_EVENTS) return { t, seen: kept };
  // Keep whole milliseconds only: dropping part of one would show the rest again.
  let from = kept.length - MAX_SEEN_EVENTS;
  while (from < kept.length && from > 0 && kept[from]!.timestamp === kept[from - 1]!.timestamp) from++;
  if (from >= kept.length) return { t: kept[kept.length - 1]!.timestamp + 1, seen: [] };
  return { t: kept[from]!.timestamp, seen: kept.slice(from) };
}

export function encodeCursor(cursor: CloudWatchCursor): string {
  return [PREFIX, cursor.t.toString(36), ...cursor.seen.map((e) => `${e.digest}${(e.timestamp - cursor.t).toString(36)}`)].join('.');
}

export function decodeCursor(text: string): CloudWatchCursor {
  const [prefix, t, ...entries] = text.split('.');
  const bad = () =>
    invalidArgument(`"${text.slice(0, 40)}" is not a debug-log cursor this controller gave; run drover debug-log again without one`);
  if (prefix !== PREFIX || t === undefined || !/^[0-9a-z]{1,11}$/.test(t)) throw bad();
  const start = parseInt(t, 36);
  const seen = entries.map((entry) => {
    const match = entry.match(new RegExp(`^([A-Za-z0-9_-]{${DIGEST_LENGTH}})([0-9a-z]{1,8})$`));
    if (!match) throw bad();
    return { digest: match[1]!, timestamp: start + parseInt(match[2]!, 36) };
  });
  return { t: start, seen };
}
