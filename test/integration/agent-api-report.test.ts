// The agent API's `report` (shared/domain/plans/unit-report.ts): a unit agent's status changes,
// charm URL and log lines in one request, taken once however often it is sent.
import { beforeEach, describe, expect, it } from 'vitest';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getUnit } from '#shared/state/engine/reads.js';
import { readStatusLog } from '#shared/state/queries/status-log.js';
import type { Store } from '#shared/state/engine/store.js';
import { apiEvent } from '../support/api-events.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';
import { API_TOKEN, testApiHandler } from '../support/api-handler.js';
import { agentEvent } from '../support/agent-events.js';

const TOKEN = API_TOKEN;
let store: Store;
let api: Awaited<ReturnType<typeof testApiHandler>>;

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  api = await testApiHandler(store);
  await deploy(store, { charm: charms.wordpress, numUnits: 2 });
  for (const m of ['0', '1']) await setAgentCredentialHash(store, m, hashAgentCredential(`secret-${m}`), 0);
});

const agent = (machine: string) => async (op: string, body: unknown) => {
  const res = await api(await agentEvent('POST', `/v1/agent/${op}`, body, { machine }));
  return { status: res.statusCode, body: JSON.parse(String(res.body)) };
};

async function debugLog(): Promise<string[]> {
  const res = await api({ ...apiEvent('GET', '/v1/debug-log', undefined, TOKEN), rawQueryString: 'limit=100' });
  return (JSON.parse(String(res.body)) as { lines: string[] }).lines;
}

/** The unit's history as show-status-log lists it, without the times. */
async function history(unit: string) {
  return (await readStatusLog(store, unit, { limit: 100 })).map((e) => [e.type, e.status, e.message ?? '']);
}

type Change = { kind: 'agent' | 'workload'; status: { current: string; message?: string } };

/**
 * What the unit agent reports from deployment to a started, idle unit, in the order it does:
 * its charm, install announced (with the workload status Juju's uniter sets before install),
 * config-changed, start, the charm's status-set in start, idle.
 */
const INSTALL_TO_START: Change[] = [
  { kind: 'agent', status: { current: 'executing', message: 'running install hook' } },
  { kind: 'workload', status: { current: 'maintenance', message: 'installing charm software' } },
  { kind: 'agent', status: { current: 'executing', message: 'running config-changed hook' } },
  { kind: 'agent', status: { current: 'executing', message: 'running start hook' } },
  { kind: 'workload', status: { current: 'active', message: 'ready' } },
  { kind: 'agent', status: { current: 'idle' } },
];

const line = (message: string) => ({ time: '2026-11-27T03:00:00.000Z', level: 'INFO', module: 'unit.wordpress/1.juju-log', message });

describe('report', () => {
  it('records install → start as one request per change did: the same status history and statuses', async () => {
    // wordpress/0 the old way, a set-unit-status per change; wordpress/1 in two reports.
    for (const change of INSTALL_TO_START) {
      expect((await agent('0')('set-unit-status', { unit: 'wordpress/0', [change.kind]: change.status })).status).toBe(200);
    }
    let ms = Date.now() - 10_000;
    const dated = INSTALL_TO_START.map((c) => ({ ...c, at: new Date(ms++).toISOString() }));
    const first = await agent('1')('report', {
      unit: 'wordpress/1',
      id: 'report-aaaa-1',
      statuses: dated.slice(0, 3),
      charmUrl: 'local:wordpress-1',
    });
    expect(first).toEqual({ status: 200, body: { applied: true } });
    await agent('1')('report', { unit: 'wordpress/1', id: 'report-aaaa-2', statuses: dated.slice(3), lines: [line('started')] });

    const old = await history('wordpress/0');
    expect(old).toEqual(
      INSTALL_TO_START.map((c) => [c.kind === 'agent' ? 'juju-unit' : 'workload', c.status.current, c.status.message ?? '']),
    );
    expect(await history('wordpress/1')).toEqual(old);
    const [before, after] = [await getUnit(store, 'wordpress/0'), await getUnit(store, 'wordpress/1')];
    expect(after?.agentStatus).toMatchObject({ current: 'idle' });
    expect(after?.workloadStatus).toMatchObject({ current: 'active', message: 'ready' });
    expect({ ...after?.agentStatus, since: '' }).toEqual({ ...before?.agentStatus, since: '' });
    expect({ ...after?.workloadStatus, since: '' }).toEqual({ ...before?.workloadStatus, since: '' });
    // The unit keeps the time each change was made, not the time it reached the controller.
    expect(after?.agentStatus.since).toBe(dated[5]!.at);
    expect(after?.charmUrl).toBe('local:wordpress-1');
    expect(await debugLog()).toEqual(['unit-wordpress-1: 03:00:00 INFO unit.wordpress/1.juju-log started']);
  });

  it('the same report sent again, one after the other or at once, is taken once: no second history entry or line', async () => {
    const report = {
      unit: 'wordpress/1',
      id: 'report-bbbb-1',
      statuses: [{ kind: 'agent', status: { current: 'executing', message: 'running install hook' }, at: new Date().toISOString() }],
      lines: [line('once')],
    };
    const before = (await history('wordpress/1')).length;
    const [a, b] = await Promise.all([agent('1')('report', report), agent('1')('report', report)]);
    const again = await agent('1')('report', report);
    expect([a.status, b.status, again.status]).toEqual([200, 200, 200]);
    expect([a.body.applied, b.body.applied].sort()).toEqual([false, true]);
    expect(again.body).toEqual({ applied: false });
    expect(await history('wordpress/1')).toHaveLength(before + 1);
    expect(await debugLog()).toEqual(['unit-wordpress-1: 03:00:00 INFO unit.wordpress/1.juju-log once']);
    // A new report after it is taken as usual.
    await agent('1')('report', { ...report, id: 'report-bbbb-2', statuses: [{ ...report.statuses[0]!, status: { current: 'idle' } }] });
    expect((await getUnit(store, 'wordpress/1'))?.agentStatus.current).toBe('idle');
  });

  it("another machine's unit is refused, and nothing changes", async () => {
    const before = { unit: await getUnit(store, 'wordpress/1'), history: await history('wordpress/1') };
    const res = await agent('0')('report', {
      unit: 'wordpress/1',
      id: 'report-cccc-1',
      statuses: [{ kind: 'workload', status: { current: 'blocked', message: 'mine now' }, at: new Date().toISOString() }],
      charmUrl: 'local:wordpress-9',
      lines: [line('not yours')],
    });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe(`permission denied: unit "wordpress/1" is not on this agent's machine`);
    expect(await getUnit(store, 'wordpress/1')).toEqual(before.unit);
    expect(await history('wordpress/1')).toEqual(before.history);
    expect(await debugLog()).toEqual([]);
  });

  it('bad input is refused with a clear error, and nothing changes', async () => {
    const before = { unit: await getUnit(store, 'wordpress/1'), history: await history('wordpress/1') };
    const at = new Date().toISOString();
    const status = { kind: 'agent', status: { current: 'idle' }, at };
    const bad = [
      { unit: 'wordpress/1', id: 'x', statuses: [status] },
      { unit: 'wordpress/1', id: 'report-dddd-1', statuses: Array.from({ length: 41 }, () => status) },
      { unit: 'wordpress/1', id: 'report-dddd-2', statuses: [{ ...status, status: { current: 'idle', message: 'm'.repeat(1001) } }] },
      { unit: 'wordpress/1', id: 'report-dddd-3', statuses: [{ ...status, at: 'yesterday' }] },
      { unit: 'wordpress/1', id: 'report-dddd-4', lines: Array.from({ length: 201 }, () => line('x')) },
    ];
    for (const body of bad) {
      const res = await agent('1')('report', body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/^invalid report request: /);
    }
    expect(await getUnit(store, 'wordpress/1')).toEqual(before.unit);
    expect(await history('wordpress/1')).toEqual(before.history);
    expect(await debugLog()).toEqual([]);
  });

  it('dates a change no later than the controller clock, and two changes of a kind apart', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    await agent('1')('report', {
      unit: 'wordpress/1',
      id: 'report-eeee-1',
      statuses: [
        { kind: 'agent', status: { current: 'executing', message: 'running install hook' }, at: future },
        { kind: 'agent', status: { current: 'idle' }, at: future },
      ],
    });
    const entries = (await readStatusLog(store, 'wordpress/1', { type: 'juju-unit', limit: 100 })).slice(-2);
    expect(entries.map((e) => e.status)).toEqual(['executing', 'idle']);
    expect(Date.parse(entries[0]!.time)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(entries[1]!.time)).toBe(Date.parse(entries[0]!.time) + 1);
  });
});
