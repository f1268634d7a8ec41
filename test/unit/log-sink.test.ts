import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileLogSink } from '#shared/logs/file-log-sink.js';
import { entityMatcher, formatLogLine, type LogRecord } from '#shared/logs/log-sink.js';

const record = (entity: string, level: LogRecord['level'], message: string, time = '2024-01-01T12:34:56.000Z'): LogRecord => ({
  entity,
  time,
  level,
  module: 'unit.mysql/0.juju-log',
  message,
});

describe('debug-log lines', () => {
  it('print as juju debug-log does', () => {
    expect(formatLogLine(record('unit-mysql-0', 'INFO', 'hello'))).toBe('unit-mysql-0: 12:34:56 INFO unit.mysql/0.juju-log hello');
  });

  it('are filtered by entity tag, unit name, application name, machine id or glob', () => {
    expect(entityMatcher('unit-mysql-0')('unit-mysql-0')).toBe(true);
    expect(entityMatcher('mysql/0')('unit-mysql-0')).toBe(true);
    expect(entityMatcher('mysql')('unit-mysql-12')).toBe(true);
    expect(entityMatcher('mysql')('unit-mysql-router-0')).toBe(false);
    expect(entityMatcher('0')('machine-0')).toBe(true);
    expect(entityMatcher('unit-*')('machine-0')).toBe(false);
  });
});

describe('fileLogSink', () => {
  it('replays the last lines matching, and tails from a cursor', async () => {
    const sink = fileLogSink(join(mkdtempSync(join(tmpdir(), 'logs-')), 'nested'));
    await sink.append([record('unit-mysql-0', 'DEBUG', 'a'), record('unit-mysql-0', 'INFO', 'b'), record('machine-0', 'ERROR', 'c')]);
    const last = await sink.read({ limit: 2 });
    expect(last.records.map((r) => r.message)).toEqual(['b', 'c']);
    expect((await sink.read({ limit: 10, level: 'INFO', include: ['mysql'] })).records.map((r) => r.message)).toEqual(['b']);
    expect((await sink.read({ limit: 10, exclude: ['0'] })).records.map((r) => r.message)).toEqual(['a', 'b']);
    await sink.append([record('unit-mysql-0', 'INFO', 'd'), record('unit-mysql-0', 'INFO', 'e')]);
    const tail = await sink.read({ limit: 1, after: last.cursor });
    expect(tail.records.map((r) => r.message)).toEqual(['d']);
    expect((await sink.read({ limit: 10, after: tail.cursor })).records.map((r) => r.message)).toEqual(['e']);
  });

  it("keeps each model's records to itself: the same unit names in two models never mix", async () => {
    const sink = fileLogSink(mkdtempSync(join(tmpdir(), 'logs-')));
    // A record written before there were many models is bootstrap's model's.
    await sink.append([record('unit-mysql-0', 'INFO', 'old'), { ...record('unit-mysql-0', 'INFO', 'staging'), model: 'b0e5' }]);
    await sink.append([{ ...record('unit-mysql-0', 'INFO', 'default'), model: 'default' }]);
    expect((await sink.read({ limit: 10, model: 'default' })).records.map((r) => r.message)).toEqual(['old', 'default']);
    expect((await sink.read({ limit: 10, model: 'b0e5', include: ['mysql/0'] })).records.map((r) => r.message)).toEqual(['staging']);
  });

  it('reads nothing from a log not written yet', async () => {
    expect(await fileLogSink(mkdtempSync(join(tmpdir(), 'logs-'))).read({ limit: 10 })).toEqual({ records: [], cursor: '0' });
  });
});
