// Agent presence with real machine agent processes: an idle agent's heartbeat keeps its machine
// `started`; once its process is killed, status shows the machine `down` and its unit `lost` (as
// Juju 2.9 shows it: https://github.com/juju/juju/blob/2.9/apiserver/common/unitstatus.go), and it
// is back when an agent runs again. Short intervals: a heartbeat every second, lost after six.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStatus } from '#shared/state/queries/status.js';
import { hookLog, hookNames, startAgentHarness, unitOf, type AgentHarness } from '../../support/agents.js';
import { waitFor } from '../../support/wait-for.js';

const LOST_AFTER_SECONDS = 6;
const FAST = { DROVER_HEARTBEAT_SECONDS: '1' };

let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness({ agentLostAfterSeconds: LOST_AFTER_SECONDS });
});
afterAll(async () => {
  await h?.stop();
});

const status = () => readStatus(h.store, { agentLostAfterSeconds: LOST_AFTER_SECONDS });
type Doc = Awaited<ReturnType<typeof status>>;
const machineStatus = (doc: Doc, id: string) =>
  (doc.machines[id] as { 'juju-status': { current: string; message?: string } })['juju-status'];
const unitStatus = (doc: Doc, app: string, unit: string) =>
  (doc.applications[app] as { units: Record<string, { 'juju-status': { current: string }; 'workload-status': unknown }> }).units[unit]!;

async function idle(machine: string, unit: string) {
  await waitFor(
    `${unit} started`,
    () => hookLog(h, machine, unit),
    (l) => hookNames(l).includes('start'),
  );
  await waitFor(
    `${unit} idle`,
    () => unitOf(h, unit),
    (u) => u?.agentStatus.current === 'idle',
  );
}

describe('agent presence', () => {
  it("an idle agent's heartbeat keeps its machine started; a killed agent's machine goes down and its unit lost", async () => {
    const { machines, units } = await h.deployCharm('database', { name: 'db-presence', numUnits: 2 });
    const [talking, silent] = machines as [string, string];
    await h.startAgent(talking, FAST);
    const victim = await h.startAgent(silent, FAST);
    await idle(talking, units[0]!);
    await idle(silent, units[1]!);
    await h.drain();

    const before = h.agentRequests(talking);
    await victim.kill();
    const doc = await waitFor(`machine ${silent} down`, status, (d) => machineStatus(d, silent).current === 'down', 30_000);
    expect(machineStatus(doc, silent)).toMatchObject({ current: 'down', message: 'agent is not communicating with the server' });
    expect(unitStatus(doc, 'db-presence', units[1]!)).toMatchObject({
      'juju-status': { current: 'lost', message: 'agent is not communicating with the server' },
      'workload-status': { current: 'unknown', message: `agent lost, see 'drover show-status-log ${units[1]}'` },
    });
    // Silent for longer than the threshold too, but for its heartbeats.
    expect(machineStatus(doc, talking).current).toBe('started');
    expect(unitStatus(doc, 'db-presence', units[0]!)).toMatchObject({
      'juju-status': { current: 'idle' },
      'workload-status': { current: 'active' },
    });
    expect(h.agentRequests(talking)).toBeGreaterThan(before);
    // Nothing was stored: the entities still say what their agents last said.
    expect((await unitOf(h, units[1]!))?.agentStatus.current).toBe('idle');
  });

  it('a machine whose agent runs again is started again, and its unit no longer lost', async () => {
    const { machines, units } = await h.deployCharm('database', { name: 'db-back', numUnits: 1 });
    const [machine, unit] = [machines[0]!, units[0]!];
    const first = await h.startAgent(machine, FAST);
    await idle(machine, unit);
    await first.kill();
    await waitFor(`machine ${machine} down`, status, (d) => machineStatus(d, machine).current === 'down', 30_000);

    await h.startAgent(machine, FAST);
    const doc = await waitFor(
      `machine ${machine} started again, its unit not lost`,
      status,
      (d) => machineStatus(d, machine).current === 'started' && unitStatus(d, 'db-back', unit)['juju-status'].current !== 'lost',
      30_000,
    );
    expect(machineStatus(doc, machine)).toEqual(expect.objectContaining({ current: 'started' }));
    expect(unitStatus(doc, 'db-back', unit)['juju-status'].current).not.toBe('lost');
  });
});
