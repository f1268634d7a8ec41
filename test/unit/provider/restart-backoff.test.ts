// When the local provider starts a dead agent again (shared/provider/local/restart-backoff.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LocalInstanceRecord } from '#shared/provider/local/machine-dir.js';
import { decideRestart, forgetRestarts } from '#shared/provider/local/restart-backoff.js';

const POLICY = { stableRunMs: 60_000, immediateRestarts: 2, firstDelayMs: 2_000, maxDelayMs: 8_000 };
const T0 = Date.parse('2026-11-26T06:00:00Z');

const record = (startedAt: number, attempt = 0): LocalInstanceRecord => ({
  instanceId: `local-c-1-${attempt}`,
  controllerId: 'c',
  machineId: '1',
  attempt,
  series: 'jammy',
  pid: 4242,
  startedAt: new Date(startedAt).toISOString(),
});

describe('restarting a dead agent', () => {
  it('is at once for the first quick deaths, then after delays that double up to the cap', () => {
    const dir = mkdtempSync(join(tmpdir(), 'drover-backoff-'));
    let now = T0;
    const deathAfter = (ranMs: number) => {
      const started = now;
      now += ranMs;
      return decideRestart(dir, record(started), now, POLICY);
    };
    expect(deathAfter(1_000)).toEqual({ restart: true, quickDeaths: 1 });
    expect(deathAfter(1_000)).toEqual({ restart: true, quickDeaths: 2 });
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      const decision = deathAfter(1_000);
      expect(decision.restart).toBe(false);
      if (decision.restart) return;
      delays.push(decision.restartAt - now);
      now = decision.restartAt;
      expect(decideRestart(dir, record(now - 1_000 - delays.at(-1)!), now, POLICY).restart).toBe(true);
    }
    expect(delays).toEqual([2_000, 4_000, 8_000, 8_000]);
  });

  it('counts each death once, however often it is asked about', () => {
    const dir = mkdtempSync(join(tmpdir(), 'drover-backoff-'));
    const r = record(T0);
    for (let i = 0; i < 5; i++) expect(decideRestart(dir, r, T0 + 1_000 + i, POLICY).quickDeaths).toBe(1);
  });

  it('starts counting again after an agent that ran long, a new attempt, or a clean stop', () => {
    const dir = mkdtempSync(join(tmpdir(), 'drover-backoff-'));
    for (let i = 0; i < 3; i++) decideRestart(dir, record(T0 + i * 10), T0 + i * 10 + 5, POLICY);
    expect(decideRestart(dir, record(T0 + 100), T0 + 100 + 60_000, POLICY)).toEqual({ restart: true, quickDeaths: 0 });
    for (let i = 0; i < 3; i++) decideRestart(dir, record(T0 + 200_000 + i * 10), T0 + 200_000 + i * 10 + 5, POLICY);
    expect(decideRestart(dir, record(T0 + 300_000, 1), T0 + 300_005, POLICY)).toEqual({ restart: true, quickDeaths: 1 });
    forgetRestarts(dir);
    expect(decideRestart(dir, record(T0 + 400_000, 1), T0 + 400_005, POLICY)).toEqual({ restart: true, quickDeaths: 1 });
  });
});
