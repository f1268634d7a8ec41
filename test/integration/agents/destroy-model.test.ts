// destroy-model with real agents (test/support/agents.ts): the model's cleanup, run by the
// changes function from the stream and by the sweep, destroys the applications; the agents stop
// their units and set their machines Dead; this test removes Dead machines as the provisioner does
// (the harness runs none). A unit in hook error holds the model until destroy-model --force.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collections } from '#shared/state/engine/keys.js';
import { getMachine, getModel, listAll } from '#shared/state/engine/reads.js';
import { destroyModel } from '#shared/state/operations/destroy-model.js';
import { removeMachine } from '#shared/state/operations/remove-machine.js';
import { getModelName } from '#shared/state/queries/models.js';
import { readStatus } from '#shared/state/queries/status.js';
import { startAgentHarness, unitOf, type AgentHarness } from '../../support/agents.js';
import { waitFor } from '../../support/wait-for.js';

let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness({ sweepMs: 500 });
});
afterAll(async () => {
  await h?.stop();
});

/** The provisioner's part: a Dead machine (its agent has stopped) is removed. */
async function removeDeadMachines(): Promise<void> {
  for (const shard of collections.machineShards(h.store.model)) {
    for (const ref of await listAll(h.store, shard)) {
      if (ref.kind === 'machine' && (await getMachine(h.store, ref.id))?.life === 'dead') await removeMachine(h.store, ref.id);
    }
  }
}

describe('destroy-model with agents', () => {
  it('stops every unit it can; a unit in hook error holds the model until --force, then the model and its name go', async () => {
    const database = await h.deployCharm('database');
    const flaky = await h.deployCharm('flaky');
    await h.startAgent(database.machines[0]!);
    await h.startAgent(flaky.machines[0]!);
    await waitFor(
      'database/0 idle',
      () => unitOf(h, 'database/0'),
      (u) => u?.agentStatus.current === 'idle',
    );
    await waitFor(
      'flaky/0 in error',
      () => unitOf(h, 'flaky/0'),
      (u) => u?.agentStatus.current === 'error',
    );

    expect(await destroyModel(h.store)).toBe('dying');
    await waitFor(
      'database/0 stopped and removed',
      async () => {
        await removeDeadMachines();
        return unitOf(h, 'database/0');
      },
      (u) => u === undefined,
      60_000,
    );
    // The unit directory went with it; the controller's log keeps what its hooks did.
    const ranHooks = async () =>
      (await h.logs.read({ include: ['database/0'], limit: 1000 })).records
        .map((r) => /^ran "(\S+)" hook/.exec(r.message)?.[1])
        .filter(Boolean);
    expect(await waitFor('the stop hook in the log', ranHooks, (hooks) => hooks.includes('stop'))).toEqual([
      'install',
      'config-changed',
      'start',
      'stop',
    ]);
    const status = await waitFor(
      'the model held by flaky/0 alone',
      async () => {
        await removeDeadMachines();
        return readStatus(h.store);
      },
      (s) => Object.keys(s.applications).join() === 'flaky' && Object.keys(s.machines).join() === flaky.machines[0],
      60_000,
    );
    expect(status.model['model-status']).toMatchObject({ current: 'destroying', life: 'dying' });
    expect(status.model['blocked-by']).toEqual([
      '1 application: flaky',
      `1 machine: ${flaky.machines[0]}`,
      'unit flaky/0: its agent is in error (hook failed: "install"): run "drover resolved flaky/0", or "drover destroy-model default --force"',
    ]);

    expect(await destroyModel(h.store, { force: true })).toBe('forcing');
    await waitFor(
      'the model removed',
      async () => {
        await removeDeadMachines();
        return getModel(h.store);
      },
      (m) => m === undefined,
      60_000,
    );
    expect(await getModelName(h.store, 'default')).toBeUndefined();
  }, 180_000);
});
