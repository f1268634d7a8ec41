// The two homes of the agents' log answer debug-log alike: the same records, appended to the
// local file sink and to the Lambda sink (whose lines a CloudWatch Logs group holds and the
// CloudWatch reader reads back), give the same pages for the same queries, replayed or tailed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cloudWatchLogReader } from '#shared/logs/cloudwatch-log-reader.js';
import { fileLogSink } from '#shared/logs/file-log-sink.js';
import { lambdaLogSink } from '#shared/logs/lambda-log-sink.js';
import type { LogQuery, LogRecord, LogSink } from '#shared/logs/log-sink.js';
import { fakeLogGroup, LOG_GROUP } from '../support/cloudwatch-logs.js';

interface Home {
  name: string;
  sink: LogSink;
  /** Time passes (the CloudWatch group's clock; the file has none). */
  wait(ms: number): void;
}

function fileHome(): Home {
  return { name: 'file', sink: fileLogSink(mkdtempSync(join(tmpdir(), 'logs-contract-'))), wait: () => {} };
}

function cloudWatchHome(): Home {
  const group = fakeLogGroup({ pageSize: 3, stillSearching: 1 });
  const sink = lambdaLogSink({
    write: (line) => group.ingest(line, { delayMs: 2000 }),
    read: cloudWatchLogReader({ client: group.client, logGroupName: LOG_GROUP, now: () => group.now }),
  });
  // Lambda's START/END/REPORT and the function's own Powertools lines share the group.
  group.ingest('START RequestId: 8f5f6d0b-2a4e-4c1e-9d1e-0b6f0c1d2e3f Version: $LATEST');
  group.ingest('{"level":"INFO","message":"request","service":"api","timestamp":"2024-05-01T11:59:59.000Z"}');
  return { name: 'cloudwatch', sink, wait: (ms) => (group.now += ms) };
}

let clock = Date.parse('2024-05-01T11:00:00.000Z');
const record = (entity: string, level: LogRecord['level'], message: string): LogRecord => ({
  entity,
  time: new Date((clock += 1000)).toISOString(),
  level,
  module: entity.startsWith('unit-') ? `unit.${entity.slice(5).replace(/-(\d+)$/, '/$1')}.juju-log` : 'juju.worker.machine',
  message,
});

const firstBatch = [
  record('machine-0', 'INFO', 'machine agent started'),
  record('unit-mysql-0', 'DEBUG', 'install hook starting'),
  record('unit-mysql-0', 'INFO', 'installing mysql'),
  record('unit-mysql-router-0', 'WARNING', 'router waiting'),
  record('unit-mysql-1', 'ERROR', 'hook "install" failed: exit status 1'),
  record('unit-wordpress-0', 'INFO', 'installing wordpress'),
  record('machine-1', 'CRITICAL', 'disk full'),
];
const sinceThird = firstBatch[2]!.time;
const secondBatch = [
  record('unit-mysql-0', 'INFO', 'started'),
  record('unit-mysql-1', 'INFO', 'resolved'),
  record('unit-wordpress-0', 'ERROR', 'db-relation-changed failed'),
  record('machine-0', 'DEBUG', 'tick'),
  record('unit-mysql-0', 'WARNING', 'slow query'),
];

const queries: Omit<LogQuery, 'after'>[] = [
  { limit: 10 },
  { limit: 2 },
  { limit: 10, level: 'INFO', include: ['mysql'] },
  { limit: 10, include: ['mysql/0', '1'] },
  { limit: 10, include: ['unit-mysql-*'], exclude: ['mysql/1'] },
  { limit: 10, exclude: ['mysql', '0'] },
  { limit: 10, level: 'ERROR' },
  { limit: 3, level: 'WARNING', exclude: ['machine-*'] },
  { limit: 10, since: sinceThird, include: ['mysql'] },
];

/** Every page of a tail from `cursor`, `limit` at a time, until one comes back short. */
async function tail(sink: LogSink, query: Omit<LogQuery, 'after'>, cursor: string): Promise<string[]> {
  const shown: string[] = [];
  let page = await sink.read({ ...query, after: cursor });
  // A tail that never ends (a cursor that does not move) fails here rather than running forever.
  for (let pages = 1; pages <= 20; pages++, page = await sink.read({ ...query, after: page.cursor })) {
    shown.push(...page.records.map((r) => `${r.entity} ${r.message}`));
    if (page.records.length < query.limit) return shown;
  }
  throw new Error(`the tail did not end: ${shown.join(', ')}`);
}

describe('debug-log answers alike from the file and from CloudWatch Logs', () => {
  it('replays the last matching lines of the same records for every query', async () => {
    const homes = [fileHome(), cloudWatchHome()];
    for (const home of homes) await home.sink.append(firstBatch);
    for (const home of homes) home.wait(5000);
    for (const query of queries) {
      const [file, cloudWatch] = await Promise.all(homes.map((h) => h.sink.read(query)));
      expect(cloudWatch!.records, JSON.stringify(query)).toEqual(file!.records);
    }
    const mysql = await homes[1]!.sink.read({ limit: 10, level: 'INFO', include: ['mysql'] });
    expect(mysql.records.map((r) => r.message)).toEqual(['installing mysql', 'hook "install" failed: exit status 1']);
  });

  it('tails the same lines after a cursor, a page at a time, none twice and none lost', async () => {
    for (const query of queries) {
      const homes = [fileHome(), cloudWatchHome()];
      const cursors: string[] = [];
      for (const home of homes) {
        await home.sink.append(firstBatch);
        home.wait(5000);
        cursors.push((await home.sink.read(query)).cursor);
        // Agents report twice a second or so: the second batch arrives in pieces, some sharing a millisecond.
        await home.sink.append(secondBatch.slice(0, 3));
        await home.sink.append(secondBatch.slice(3));
        home.wait(3000);
      }
      const paged = { ...query, limit: 2 };
      const [file, cloudWatch] = await Promise.all(homes.map((h, i) => tail(h.sink, paged, cursors[i]!)));
      expect(cloudWatch, JSON.stringify(query)).toEqual(file);
    }
  });

  it('tails exactly the new lines that match', async () => {
    const home = cloudWatchHome();
    await home.sink.append(firstBatch);
    home.wait(5000);
    const { cursor } = await home.sink.read({ limit: 1, include: ['mysql/0'] });
    await home.sink.append(secondBatch);
    home.wait(3000);
    expect(await tail(home.sink, { limit: 1, include: ['mysql/0'] }, cursor)).toEqual(['unit-mysql-0 started', 'unit-mysql-0 slow query']);
  });
});
