// debug-log on AWS: the records lambdaLogSink wrote as `{"debugLog": record}` lines on the API
// function's stdout, read back from its CloudWatch Logs group with FilterLogEvents. The answers
// are the file sink's for the same records (test/unit/log-sink-contract.test.ts): a JSON filter
// pattern narrows what CloudWatch returns, and recordMatches() decides.
//
// Without a cursor: the last `limit` matching records, searched backwards from now in widening
// windows so a busy recent log is not read from its beginning. With one: the matching records
// after it (cloudwatch-log-cursor.ts says what it holds), oldest first, at most `limit`.
import { FilterLogEventsCommand, type CloudWatchLogsClient, type FilteredLogEvent } from '@aws-sdk/client-cloudwatch-logs';
import { debugLogFilterPattern } from './cloudwatch-filter-pattern.js';
import { cursorAt, decodeCursor, encodeCursor, eventDigest, type SeenEvent } from './cloudwatch-log-cursor.js';
import { isLogLevel, recordMatches, type LogPage, type LogQuery, type LogRecord } from './log-sink.js';

/**
 * How far back a tail reads again: CloudWatch makes an event readable a few seconds after its
 * timestamp, so one that arrives that late behind events already shown is still found. Later
 * than this, it is missed by a running tail (a replay shows it).
 */
export const INGESTION_GRACE_MS = 10_000;
/** An agent's clock may run ahead of Lambda's: `since` looks this much further back. */
const CLOCK_SKEW_MS = 15 * 60_000;
/** The first window searched back for the last records; each next one is four times wider... */
const FIRST_WINDOW_MS = 15 * 60_000;
/** ...until one would be wider than this: then the rest of the log is one last window. */
const WIDEST_WINDOW_MS = 3 * 24 * 3600_000;

/**
 * A page reads for at most this long: API Gateway gives up on the API function after 29 s. A
 * page that runs out of time returns what it has found and a cursor from where it stopped.
 */
export const PAGE_BUDGET_MS = 20_000;

export interface CloudWatchLogReaderOptions {
  client: CloudWatchLogsClient;
  /** The API function's log group (DEBUG_LOG_GROUP, set by infra/stack.ts). */
  logGroupName: string;
  now?: () => number;
  /** PAGE_BUDGET_MS unless given (tests). */
  pageBudgetMs?: number;
}

interface MatchedEvent extends SeenEvent {
  record: LogRecord;
}

/** The record of a `{"debugLog": ...}` line; anything else (START/END/REPORT, Powertools) is not one. */
export function debugLogRecord(message: string | undefined): LogRecord | undefined {
  if (!message?.startsWith('{"debugLog":')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return undefined; // a line Lambda cut at its size limit
  }
  const r = (parsed as { debugLog?: Partial<LogRecord> }).debugLog;
  if (!r || typeof r !== 'object') return undefined;
  const { model, entity, time, level, module, message: text } = r;
  if (typeof entity !== 'string' || typeof time !== 'string' || typeof module !== 'string' || typeof text !== 'string') return undefined;
  if (typeof level !== 'string' || !isLogLevel(level)) return undefined;
  return { ...(typeof model === 'string' ? { model } : {}), entity, time, level, module, message: text };
}

export function cloudWatchLogReader(options: CloudWatchLogReaderOptions): (query: LogQuery) => Promise<LogPage> {
  const now = options.now ?? Date.now;
  const budgetMs = options.pageBudgetMs ?? PAGE_BUDGET_MS;

  /** Every matching event in [start, end] (both inclusive, as FilterLogEvents reads them), oldest first. */
  async function matching(query: LogQuery, start: number, end: number): Promise<MatchedEvent[]> {
    const filterPattern = debugLogFilterPattern(query);
    const found: MatchedEvent[] = [];
    let nextToken: string | undefined;
    // Every page, not just until `limit`: FilterLogEvents may answer a page with no events and a
    // token (it is still searching), and only the whole range sorted says which come first.
    do {
      const page = await options.client.send(
        new FilterLogEventsCommand({
          logGroupName: options.logGroupName,
          startTime: start,
          endTime: end,
          filterPattern,
          ...(nextToken ? { nextToken } : {}),
        }),
      );
      for (const event of page.events ?? []) {
        const matched = toMatched(event, query);
        if (matched) found.push(matched);
      }
      nextToken = page.nextToken;
    } while (nextToken);
    return found.sort((a, b) => a.timestamp - b.timestamp);
  }

  function toMatched(event: FilteredLogEvent, query: LogQuery): MatchedEvent | undefined {
    const record = debugLogRecord(event.message);
    if (!record || event.timestamp === undefined || !event.eventId || !recordMatches(record, query)) return undefined;
    return { record, timestamp: event.timestamp, digest: eventDigest(event.eventId) };
  }

  const sinceFloor = (query: LogQuery) => (query.since ? Math.max(0, Date.parse(query.since) - CLOCK_SKEW_MS) : 0);

  async function last(query: LogQuery): Promise<LogPage> {
    const end = now();
    const deadline = end + budgetMs;
    const floor = sinceFloor(query);
    let found: MatchedEvent[] = [];
    // Out of time, it shows the last records found so far: the tail goes on from now either way.
    for (let windowEnd = end, width = FIRST_WINDOW_MS; windowEnd >= floor && found.length < query.limit && now() < deadline; width *= 4) {
      const windowStart = width > WIDEST_WINDOW_MS ? floor : Math.max(floor, windowEnd - width + 1);
      found = [...(await matching(query, windowStart, windowEnd)), ...found];
      windowEnd = windowStart - 1;
    }
    // Everything read counts as seen, shown or not: the tail continues after it.
    const cursor = cursorAt(Math.max(floor, end - INGESTION_GRACE_MS), found);
    return { records: found.slice(-query.limit).map((e) => e.record), cursor: encodeCursor(cursor) };
  }

  async function after(query: LogQuery, text: string): Promise<LogPage> {
    const from = decodeCursor(text);
    const end = Math.max(now(), from.t);
    const deadline = now() + budgetMs;
    const seen = new Set(from.seen.map((e) => `${e.timestamp}.${e.digest}`));
    // Forward in windows of at most WIDEST_WINDOW_MS (a tail's range is one), until the page is
    // full, the range read, or the time spent: a replay of a long log is read page by page.
    const fresh: MatchedEvent[] = [];
    let reached = Math.max(from.t, sinceFloor(query)) - 1;
    for (let first = true; reached < end && fresh.length < query.limit && (first || now() < deadline); first = false) {
      const windowEnd = Math.min(end, reached + WIDEST_WINDOW_MS);
      fresh.push(...(await matching(query, reached + 1, windowEnd)).filter((e) => !seen.has(`${e.timestamp}.${e.digest}`)));
      reached = windowEnd;
    }
    const page = fresh.slice(0, query.limit);
    // All read and shown: the next read goes back only the grace period. Stopped short of now: it
    // starts where this one stopped. A page cut short: it goes back no further than the last
    // event shown, so the rest — even at the same millisecond — comes next.
    let horizon = Math.min(end - INGESTION_GRACE_MS, reached + 1);
    if (page.length < fresh.length) horizon = Math.min(horizon, page[page.length - 1]!.timestamp);
    const cursor = cursorAt(Math.max(from.t, horizon), [...from.seen, ...page]);
    return { records: page.map((e) => e.record), cursor: encodeCursor(cursor) };
  }

  return (query) => (query.after === undefined ? last(query) : after(query, query.after));
}
