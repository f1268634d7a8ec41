// The agent simulator (test/support/agent-simulator/) that bench/scale.bench.ts drives thousands
// of units with: real machine and unit agents in one process (on a thread of their own), hooks in-process. This test keeps
// it honest as the agent evolves: deployed units on simulated machines must reach what real
// agents reach — machines started, every unit's charm reported, its agent idle and its workload
// active (status-set from the start hook, through the tool socket), one leader per application —
// through the same agent API calls a real agent makes.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allUnits, type StatusDoc } from '#shared/domain/status-document.js';
import { setApplicationConfig } from '#shared/state/operations/application-config.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { readStatus } from '#shared/state/queries/status.js';
import { startSimulatedController, type SimulatedController } from '../support/agent-simulator/simulated-controller.js';
import { dynamoEndpoint } from '../support/dynamodb.js';
import { waitFor } from '../support/wait-for.js';

function settled(doc: StatusDoc): boolean {
  const units = allUnits(doc);
  const machines = Object.values(doc.machines);
  return (
    units.every((u) => u.unit['workload-status'].current === 'active' && u.unit['juju-status'].current === 'idle') &&
    machines.every((m) => m['juju-status'].current === 'started')
  );
}

describe('agent simulator', () => {
  let controller: SimulatedController;
  const started: string[] = [];
  const configChanged: string[] = [];
  beforeAll(async () => {
    controller = await startSimulatedController({
      dynamoEndpoint: await dynamoEndpoint(),
      hintWorkers: 4,
      onHookRan: (hook, unit) => {
        if (hook === 'start') started.push(unit);
        if (hook === 'config-changed') configChanged.push(unit);
      },
    });
  });
  afterAll(async () => {
    await controller?.stop();
  });

  it('brings every deployed unit on its simulated machine to started, idle and active, one leader per application', async () => {
    const { stores, charm } = controller;
    await deploy(stores.user, { charm: charm.meta, name: 'alpha', charmArchive: charm.archive, numUnits: 4 });
    await deploy(stores.user, { charm: charm.meta, name: 'beta', charmArchive: charm.archive, numUnits: 2 });
    const doc = await waitFor('every unit started, idle and active', () => readStatus(stores.user), settled, 60_000, 250);
    const units = allUnits(doc);
    expect(units.map((u) => u.name).sort()).toEqual(['alpha/0', 'alpha/1', 'alpha/2', 'alpha/3', 'beta/0', 'beta/1']);
    for (const { name, unit } of units) {
      expect({ name, workload: unit['workload-status'].current, agent: unit['juju-status'].current }).toEqual({
        name,
        workload: 'active',
        agent: 'idle',
      });
    }
    expect(Object.values(doc.machines).map((m) => m['juju-status'].current)).toEqual(Array(6).fill('started'));
    const stats = await controller.agents.stats();
    expect(stats.machines).toBe(6);
    // Leadership is claimed by the agents themselves, one unit per application.
    for (const app of ['alpha', 'beta']) {
      expect(units.filter((u) => u.application === app && u.unit.leader).length, app).toBe(1);
    }
    // The real agent's calls for a unit's start, each at least once per unit or machine.
    const calls = controller.apiCalls;
    // A unit's statuses, charm URL and lines go in reports (docs/agents.md, "Reports"): one
    // before install, one at least when it goes idle; never the single-purpose routes.
    expect(calls.get('report')).toBeGreaterThanOrEqual(12);
    expect(calls.get('set-unit-charm') ?? 0).toBe(0);
    expect(calls.get('set-unit-status') ?? 0).toBe(0);
    expect(calls.get('set-machine-status')).toBeGreaterThanOrEqual(6);
    expect(calls.get('claim-leadership')).toBeGreaterThanOrEqual(2);
    expect(calls.get('view')).toBeGreaterThanOrEqual(6);
    // Hints arrived through the shared receives, from the real queues.
    expect(stats.receives).toBeGreaterThan(0);
    expect(await controller.agents.ended()).toEqual([]);
    expect(started.sort()).toEqual(units.map((u) => u.name).sort());
  }, 90_000);

  it("hears of a change through its machines' queues: a config change runs config-changed on that application's units", async () => {
    const before = configChanged.length;
    await setApplicationConfig(controller.stores.user, 'beta', { set: { tuning: 'fast' } });
    await waitFor(
      'config-changed on both beta units',
      () => configChanged.length,
      (n) => n >= before + 2,
      60_000,
      250,
    );
    expect(configChanged.slice(before).sort()).toEqual(['beta/0', 'beta/1']);
  }, 90_000);
});
