// debug-log on AWS: what the reader asks CloudWatch Logs (FilterLogEvents on the API function's
// group, a JSON filter pattern), and how it reads the answers: other lines skipped, every page
// followed, a tail that neither repeats nor loses lines sharing a millisecond or arriving late.
import { FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { describe, expect, it } from 'vitest';
import { DroverError } from '#shared/domain/errors.js';
import { debugLogFilterPattern, MAX_FILTER_PATTERN_LENGTH } from '#shared/logs/cloudwatch-filter-pattern.js';
import { encodeCursor } from '#shared/logs/cloudwatch-log-cursor.js';
import { cloudWatchLogReader, INGESTION_GRACE_MS } from '#shared/logs/cloudwatch-log-reader.js';
import { lambdaLogSink } from '#shared/logs/lambda-log-sink.js';
import type { LogRecord } from '#shared/logs/log-sink.js';
import { fakeLogGroup, LOG_GROUP, type FakeLogGroup } from '../support/cloudwatch-logs.js';

const record = (message: string, entity = 'unit-mysql-0', level: LogRecord['level'] = 'INFO'): LogRecord => ({
  entity,
  time: '2024-05-01T11:59:00.000Z',
  level,
  module: 'unit.mysql/0.juju-log',
  message,
});
const line = (r: LogRecord) => JSON.stringify({ debugLog: r });

function setUp(options: { pageSize?: number; stillSearching?: number } = {}) {
  const group = fakeLogGroup(options);
  const read = cloudWatchLogReader({ client: group.client, logGroupName: LOG_GROUP, now: () => group.now });
  const calls = () => group.mock.commandCalls(FilterLogEventsCommand).map((c) => c.args[0].input);
  return { group, read, calls };
}
const messages = (page: { records: LogRecord[] }) => page.records.map((r) => r.message);
const ingest = (group: FakeLogGroup, ...messages: string[]) => messages.forEach((m) => group.ingest(line(record(m))));

describe('the filter pattern CloudWatch is asked for', () => {
  it('names the entities, including a whole application, and the levels at or above the one asked', () => {
    expect(debugLogFilterPattern({ include: ['mysql/0', 'wordpress', '1'], level: 'ERROR' })).toBe(
      '{ ($.debugLog.entity = "unit-mysql-0" || $.debugLog.entity = "unit-wordpress-*" || $.debugLog.entity = "machine-1") && ' +
        '($.debugLog.level = "ERROR" || $.debugLog.level = "CRITICAL") }',
    );
  });

  it('asks only for debugLog records when nothing narrows the query', () => {
    expect(debugLogFilterPattern({})).toBe('{ $.debugLog.entity = "*" }');
    expect(debugLogFilterPattern({ level: 'TRACE' })).toBe('{ $.debugLog.entity = "*" }');
  });

  it('excludes exact entities only: an application or a glob is left to the code, never narrowed', () => {
    expect(debugLogFilterPattern({ exclude: ['mysql/1', 'mysql', 'unit-wordpress-*'] })).toBe(
      '{ $.debugLog.entity = "*" && $.debugLog.entity != "unit-mysql-1" }',
    );
  });

  it('leaves out an include it cannot say exactly (a glob not at the end, a quote)', () => {
    expect(debugLogFilterPattern({ include: ['mysql/0', 'unit-*-0'] })).toBe('{ $.debugLog.entity = "*" }');
    expect(debugLogFilterPattern({ include: ['a"b'], level: 'CRITICAL' })).toBe(
      '{ $.debugLog.entity = "*" && $.debugLog.level = "CRITICAL" }',
    );
  });

  it('stays within the length FilterLogEvents accepts, dropping entities before levels', () => {
    const include = Array.from({ length: 60 }, (_, i) => `mysql/${i}`);
    const pattern = debugLogFilterPattern({ include, level: 'WARNING' });
    expect(pattern.length).toBeLessThanOrEqual(MAX_FILTER_PATTERN_LENGTH);
    expect(pattern).toBe(
      '{ $.debugLog.entity = "*" && ($.debugLog.level = "WARNING" || $.debugLog.level = "ERROR" || $.debugLog.level = "CRITICAL") }',
    );
  });
});

describe('reading the log group', () => {
  it("asks FilterLogEvents on the API function's group, up to now, with the query's pattern", async () => {
    const { group, read, calls } = setUp();
    ingest(group, 'hello');
    expect(messages(await read({ limit: 10, include: ['mysql/0'] }))).toEqual(['hello']);
    expect(calls()[0]).toEqual({
      logGroupName: LOG_GROUP,
      startTime: group.now - 15 * 60_000 + 1,
      endTime: group.now,
      filterPattern: '{ $.debugLog.entity = "unit-mysql-0" }',
    });
  });

  it('skips lines that are not debugLog records', async () => {
    const { group, read } = setUp();
    group.ingest('START RequestId: 0d1c Version: $LATEST');
    ingest(group, 'first');
    group.ingest('{"level":"INFO","message":"request","service":"api"}');
    group.ingest('{"debugLog":{"entity":"unit-mysql-0","time":"2024-05-01T11:59:00.000Z","level":"LOUD","module":"m","message":"x"}}');
    group.ingest('{"debugLog":{"entity":"unit-mysql-0","time":"2024-05-01T11:59:00.000Z","level":"INFO","mod');
    group.ingest('END RequestId: 0d1c');
    group.ingest('REPORT RequestId: 0d1c\tDuration: 12.00 ms\tBilled Duration: 12 ms');
    ingest(group, 'second');
    expect(messages(await read({ limit: 10 }))).toEqual(['first', 'second']);
  });

  it('follows nextToken through every page, empty ones too', async () => {
    // CloudWatch may answer "still searching": no events, and a token to go on with.
    const { group, read, calls } = setUp({ pageSize: 2, stillSearching: 1 });
    ingest(group, 'a', 'b', 'c', 'd', 'e');
    expect(messages(await read({ limit: 5 }))).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(calls().map((c) => c.nextToken)).toEqual([undefined, 'searching-1', 'page-2', 'page-4']);
  });

  it('searches further back only while it has fewer lines than asked', async () => {
    const { group, read, calls } = setUp();
    group.ingest(line(record('two days ago')), { timestamp: group.now - 2 * 24 * 3600_000 });
    ingest(group, 'now');
    expect(messages(await read({ limit: 1 }))).toEqual(['now']);
    expect(calls()).toHaveLength(1);
    expect(messages(await read({ limit: 2 }))).toEqual(['two days ago', 'now']);
  });

  it('looks no further back than since allows (and a margin for agent clocks)', async () => {
    const { read, calls } = setUp();
    const since = '2024-05-01T11:00:00.000Z';
    await read({ limit: 10, since });
    expect(Math.min(...calls().map((c) => c.startTime!))).toBe(Date.parse(since) - 15 * 60_000);
  });
});

describe('tailing', () => {
  it('shows each line once when a page ends inside a millisecond several lines share', async () => {
    const { group, read } = setUp();
    let { cursor } = await read({ limit: 10 });
    group.now += 1000;
    ingest(group, 'a', 'b', 'c', 'd', 'e'); // one batch: one timestamp
    const shown: string[] = [];
    for (let i = 0; i < 4; i++) {
      const page = await read({ limit: 2, after: cursor });
      shown.push(...messages(page));
      cursor = page.cursor;
    }
    expect(shown).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('shows a line CloudWatch ingested late, behind lines already shown, once', async () => {
    const { group, read } = setUp();
    const { cursor } = await read({ limit: 10 });
    const late = group.now + 1000;
    group.now += 2000;
    ingest(group, 'on time');
    group.ingest(line(record('late')), { timestamp: late, delayMs: INGESTION_GRACE_MS - 2000 });
    const first = await read({ limit: 100, after: cursor });
    expect(messages(first)).toEqual(['on time']);
    group.now = late + INGESTION_GRACE_MS - 2000;
    const second = await read({ limit: 100, after: first.cursor });
    expect(messages(second)).toEqual(['late']);
    expect(messages(await read({ limit: 100, after: second.cursor }))).toEqual([]);
  });

  it('misses a line ingested later than the grace period behind lines shown; a replay still shows it', async () => {
    const { group, read } = setUp();
    const { cursor } = await read({ limit: 10 });
    const late = group.now + 1000;
    group.now += 2000;
    ingest(group, 'on time');
    group.ingest(line(record('very late')), { timestamp: late, delayMs: INGESTION_GRACE_MS + 5000 });
    const first = await read({ limit: 100, after: cursor });
    expect(messages(first)).toEqual(['on time']);
    group.now = late + INGESTION_GRACE_MS + 2000;
    const second = await read({ limit: 100, after: first.cursor });
    expect(messages(second)).toEqual([]);
    group.now = late + INGESTION_GRACE_MS + 5000;
    expect(messages(await read({ limit: 100, after: second.cursor }))).toEqual([]);
    expect(messages(await read({ limit: 100 }))).toEqual(['very late', 'on time']);
  });

  it('reads a long log forward a window at a time when out of time, each page going on where the last stopped', async () => {
    const group = fakeLogGroup();
    const read = cloudWatchLogReader({ client: group.client, logGroupName: LOG_GROUP, now: () => group.now, pageBudgetMs: 0 });
    const day = 24 * 3600_000;
    const start = group.now - 12 * day;
    for (let d = 0; d < 12; d++) group.ingest(line(record(`day ${d}`)), { timestamp: start + d * day + 1 });
    let cursor = encodeCursor({ t: start, seen: [] });
    const shown: string[] = [];
    let pages = 0;
    for (let caughtUp = false; !caughtUp; pages++) {
      const before = group.mock.commandCalls(FilterLogEventsCommand).length;
      const page = await read({ limit: 1000, after: cursor });
      // No time left: one window a page, however long the log.
      expect(group.mock.commandCalls(FilterLogEventsCommand).length - before).toBe(1);
      shown.push(...messages(page));
      caughtUp = page.cursor === cursor || shown.length === 12;
      cursor = page.cursor;
    }
    expect(shown).toEqual(Array.from({ length: 12 }, (_, d) => `day ${d}`));
    expect(pages).toBeGreaterThan(1);
    // Caught up: nothing is shown again.
    expect(messages(await read({ limit: 1000, after: cursor }))).toEqual([]);
  });

  it('keeps the cursor short enough for a query string when a thousand lines share a millisecond', async () => {
    const { group, read } = setUp();
    const { cursor } = await read({ limit: 10 });
    group.now += 1000;
    ingest(group, ...Array.from({ length: 1000 }, (_, i) => `line ${i}`));
    const page = await read({ limit: 10_000, after: cursor });
    expect(page.records).toHaveLength(1000);
    expect(page.cursor.length).toBeLessThanOrEqual(4000);
    group.now += 1;
    ingest(group, 'next');
    expect(messages(await read({ limit: 10_000, after: page.cursor }))).toEqual(['next']);
  });

  it('refuses a cursor it did not give, asking nothing of CloudWatch', async () => {
    const { read, calls } = setUp();
    for (const after of ['123', 'cw.zz.!!', 'cw', 'cw.10.abc'])
      await expect(read({ limit: 10, after })).rejects.toThrow(/is not a debug-log cursor this controller gave/);
    await expect(read({ limit: 10, after: '123' })).rejects.toBeInstanceOf(DroverError);
    expect(calls()).toEqual([]);
  });
});

describe('the Lambda sink', () => {
  it('writes each record as one {"debugLog": record} line', async () => {
    const lines: string[] = [];
    await lambdaLogSink({ write: (l) => lines.push(l) }).append([record('a'), record('b', 'machine-0')]);
    expect(lines.map((l) => JSON.parse(l))).toEqual([{ debugLog: record('a') }, { debugLog: record('b', 'machine-0') }]);
  });

  it('says debug-log is not available when it has no log group to read', async () => {
    await expect(lambdaLogSink({ write: () => {} }).read({ limit: 10 })).rejects.toThrow(/debug-log is not available on this controller/);
  });
});
