// The update-status timer (Juju's 80–120% jitter of update-status-hook-interval), the interval from
// model config, and what a routine update-status costs: an unchanged workload status sends nothing.
import { describe, expect, it } from 'vitest';
import type { AgentApi } from '../../../agent/api-client.js';
import { UnitReporter } from '../../../agent/uniter/unit-reporter.js';
import { UpdateStatusTimer, updateStatusDelayMs } from '../../../agent/uniter/update-status-timer.js';
import { FakeClock } from '../../support/fake-clock.js';
import { formatGoDuration, parseGoDuration, updateStatusIntervalMs } from '#shared/domain/model-config.js';

describe('update-status timer', () => {
  it('waits 80% to 120% of the interval', () => {
    expect(updateStatusDelayMs(300_000, () => 0)).toBe(240_000);
    expect(updateStatusDelayMs(300_000, () => 0.5)).toBe(300_000);
    expect(updateStatusDelayMs(300_000, () => 0.999999)).toBe(360_000);
    const delays = Array.from({ length: 200 }, () => updateStatusDelayMs(300_000));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(240_000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(360_000);
    expect(new Set(delays).size).toBeGreaterThan(100); // spread, not all at once
  });

  it('is due after its delay, restarts after each run, and a new interval counts from now', async () => {
    const clock = new FakeClock(1_000);
    const timer = new UpdateStatusTimer(10_000, clock, () => 0.5);
    expect(timer.due()).toBe(false);
    expect(timer.remainingMs()).toBe(10_000);
    await clock.advance(10_000);
    expect(timer.due()).toBe(true);
    timer.restart();
    expect(timer.remainingMs()).toBe(10_000);
    await clock.advance(4_000);
    timer.changeInterval(10_000); // unchanged: the running wait stands
    expect(timer.remainingMs()).toBe(6_000);
    timer.changeInterval(2_000);
    expect(timer.remainingMs()).toBe(2_000);
  });
});

describe('update-status-hook-interval', () => {
  it("parses Go durations and prints them as Go's Duration.String", () => {
    expect(parseGoDuration('5m')).toBe(300_000);
    expect(parseGoDuration('1m30s')).toBe(90_000);
    expect(parseGoDuration('1.5h')).toBe(5_400_000);
    expect(parseGoDuration('250ms')).toBe(250);
    expect(() => parseGoDuration('5')).toThrow('time: missing unit in duration "5"');
    expect(() => parseGoDuration('5x')).toThrow('time: unknown unit "x" in duration "5x"');
    expect(() => parseGoDuration('soon')).toThrow('time: invalid duration "soon"');
    expect(formatGoDuration(60_000)).toBe('1m0s');
    expect(formatGoDuration(3_600_000)).toBe('1h0m0s');
    expect(formatGoDuration(30_000)).toBe('30s');
  });

  it('defaults to 5m; an unreadable stored value falls back to the default', () => {
    expect(updateStatusIntervalMs(undefined)).toBe(300_000);
    expect(updateStatusIntervalMs({ 'update-status-hook-interval': '10m' })).toBe(600_000);
    expect(updateStatusIntervalMs({ 'update-status-hook-interval': 'garbage' })).toBe(300_000);
    expect(updateStatusIntervalMs({ 'update-status-hook-interval': '0s' })).toBe(300_000);
  });

  it("honours a short interval, as Juju 3.6 accepts one (pytest-operator's fast_forward sets 10s)", async () => {
    expect(updateStatusIntervalMs({ 'update-status-hook-interval': '10s' })).toBe(10_000);
    const clock = new FakeClock(0);
    const timer = new UpdateStatusTimer(updateStatusIntervalMs({ 'update-status-hook-interval': '10s' }), clock, () => 1);
    await clock.advance(11_999);
    expect(timer.due()).toBe(false);
    await clock.advance(1);
    expect(timer.due()).toBe(true);
  });
});

describe('workload status writes', () => {
  /** A unit reporter whose unit has no log lines waiting. */
  const noLines = { count: () => 0, take: () => [] };
  const workloads = (calls: unknown[]) =>
    calls.flatMap((c) =>
      ((c as { statuses?: { kind: string; status: unknown }[] }).statuses ?? []).filter((s) => s.kind === 'workload').map((s) => s.status),
    );

  function recorder() {
    const calls: unknown[] = [];
    const api = { call: async (_op: string, body: unknown) => void calls.push(body) } as unknown as AgentApi;
    return { calls, reporter: new UnitReporter(api, 'wordpress/0', noLines) };
  }

  it('a status equal to the one state holds is not sent; a different one is, once', async () => {
    const { calls, reporter } = recorder();
    reporter.knowWorkload({ current: 'active', message: 'ready' });
    reporter.set({ workload: { current: 'active', message: 'ready' } });
    await reporter.flush();
    expect(calls).toEqual([]);
    reporter.set({ workload: { current: 'active', message: 'busy' } });
    await reporter.flush();
    reporter.set({ workload: { current: 'active', message: 'busy' } });
    await reporter.flush();
    expect(workloads(calls)).toEqual([{ current: 'active', message: 'busy' }]);
  });

  it('what the reporter queued itself wins over what the view said', async () => {
    const { calls, reporter } = recorder();
    reporter.set({ workload: { current: 'maintenance', message: 'installing charm software' } });
    await reporter.flush();
    reporter.knowWorkload({ current: 'waiting' }); // a stale view: ignored
    reporter.set({ workload: { current: 'waiting' } });
    await reporter.flush();
    expect(workloads(calls)).toEqual([{ current: 'maintenance', message: 'installing charm software' }, { current: 'waiting' }]);
  });

  it('a report the API could not be reached for is sent again as it was, same id, and nothing is lost', async () => {
    let fail = true;
    const calls: { id: string; statuses?: unknown[] }[] = [];
    const api = {
      call: async (_op: string, body: { id: string; statuses?: unknown[] }) => {
        calls.push(body);
        if (fail) throw new Error('down');
      },
    } as unknown as AgentApi;
    const reporter = new UnitReporter(api, 'wordpress/0', noLines);
    reporter.set({ workload: { current: 'active' } });
    await expect(reporter.flush()).rejects.toThrow('down');
    fail = false;
    reporter.set({ workload: { current: 'active' } });
    reporter.set({ agent: { current: 'idle' } });
    await reporter.flush();
    expect(calls).toHaveLength(3);
    expect(calls[1]).toEqual(calls[0]);
    expect(calls[2]!.id).not.toBe(calls[0]!.id);
    expect(workloads(calls.slice(1))).toEqual([{ current: 'active' }]);
  });
});
