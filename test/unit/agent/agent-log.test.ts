// The agents' log shipping (agent/log/agent-log.ts): lines reach the controller in batches, a unit's on its reports.
import { describe, expect, it } from 'vitest';
import type { AgentApi } from '../../../agent/api-client.js';
import { AgentLog } from '../../../agent/log/agent-log.js';
import { UnitReporter } from '../../../agent/uniter/unit-reporter.js';

function recordingApi() {
  const batches: { unit?: string; lines: { message: string }[] }[] = [];
  const api = {
    call: async (op: string, body: unknown) => {
      if (op === 'log') batches.push(body as (typeof batches)[number]);
      return {};
    },
    url: 'http://127.0.0.1:1',
  } as unknown as AgentApi;
  return { api, batches };
}

describe('the agent log', () => {
  it('ships lines after a flush with nothing pending (a settled flush must not stick)', async () => {
    const { api, batches } = recordingApi();
    const log = new AgentLog('0', api, () => undefined);
    await log.flush(); // as the deployer does after converging, with nothing logged
    log.log('app/0', 'INFO', 'unit.app/0.juju-log', 'after the empty flush');
    await log.flush();
    expect(batches.flatMap((b) => b.lines.map((l) => l.message))).toEqual(['after the empty flush']);
  });

  it('ships lines logged while a batch is on its way before the flush resolves', async () => {
    const { api, batches } = recordingApi();
    const log = new AgentLog('0', api, () => undefined);
    log.log(undefined, 'INFO', 'm', 'first');
    const flushed = log.flush();
    log.log(undefined, 'INFO', 'm', 'second');
    await flushed;
    expect(batches.flatMap((b) => b.lines.map((l) => l.message))).toEqual(['first', 'second']);
  });
});

describe("a unit's lines on its reports", () => {
  function reportingApi() {
    const calls: { op: string; body: Record<string, unknown> }[] = [];
    const api = {
      call: async (op: string, body: Record<string, unknown>) => {
        calls.push({ op, body });
        return {};
      },
      url: 'http://127.0.0.1:1',
    } as unknown as AgentApi;
    return { api, calls };
  }
  const messages = (lines: unknown) => (lines as { message: string }[] | undefined)?.map((l) => l.message);

  it("go with the unit's statuses, charm URL and the machine's lines in one report, and never by `log`", async () => {
    const { api, calls } = reportingApi();
    const log = new AgentLog('0', api, () => undefined);
    const reporter = new UnitReporter(api, 'app/0', log);
    log.carry('app/0', reporter);
    log.log(undefined, 'INFO', 'juju.worker.deployer', 'deployed unit "app/0"');
    log.log('app/0', 'INFO', 'juju.worker.uniter', 'unit "app/0" started');
    reporter.reportCharm('local:app-1');
    reporter.set({ agent: { current: 'executing', message: 'running install hook' } });
    reporter.set({ workload: { current: 'maintenance', message: 'installing charm software' } });
    reporter.set({ agent: { current: 'executing', message: 'running start hook' } });
    reporter.set({ agent: { current: 'idle' } });
    await reporter.flush();
    await log.flush();
    expect(calls.map((c) => c.op)).toEqual(['report']);
    const { body } = calls[0]!;
    expect(body.charmUrl).toBe('local:app-1');
    expect((body.statuses as { kind: string; status: { current: string } }[]).map((s) => `${s.kind} ${s.status.current}`)).toEqual([
      'agent executing',
      'workload maintenance',
      'agent executing',
      'agent idle',
    ]);
    const times = (body.statuses as { kind: string; at: string }[]).filter((s) => s.kind === 'agent').map((s) => Date.parse(s.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(times).size).toBe(times.length);
    expect(messages(body.lines)).toEqual(['unit "app/0" started']);
    expect(messages(body.machineLines)).toEqual(['deployed unit "app/0"']);
  });

  it('once the unit is recalled, or the agent stops, its lines left go by `log`', async () => {
    const { api, calls } = reportingApi();
    const log = new AgentLog('0', api, () => undefined);
    const reporter = new UnitReporter(api, 'app/0', log);
    log.carry('app/0', reporter);
    log.log('app/0', 'INFO', 'm', 'waiting for a report');
    await log.flush();
    expect(calls).toEqual([]);
    reporter.close();
    await log.close();
    expect(calls.map((c) => [c.op, c.body.unit, messages(c.body.lines)])).toEqual([['log', 'app/0', ['waiting for a report']]]);
  });
});
