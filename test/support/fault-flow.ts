// The flow the crash matrix kills processes in: deploy → provision → agent start → hooks →
// relate → destroy → cleanup → remove, with what must hold once each part has converged. Every
// expectation is checked whatever was killed, so a run that converged is one whose outcome is
// the same as the run without faults.
import { addRelation } from '#shared/state/operations/add-relation.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { destroyMachine } from '#shared/state/operations/destroy-machine.js';
import { getSettings } from '#shared/state/engine/reads.js';
import { charms } from './charms.js';
import { everythingRemoved } from './invariants.js';
import type { World } from './fault-world.js';

/**
 * The applications whose one unit each deploy makes. Their units' names are found, not assumed:
 * a process killed after reserving a number and before committing leaves a gap
 * (shared/state/engine/number-reservations.ts), so the unit may be mysql/1. Each must have one unit.
 */
const PRINCIPALS = ['mysql', 'wordpress'];
/** Its unit is created when wordpress's unit enters the container relation with logging. */
const SUBORDINATE_APPLICATION = 'logging';

/** Runs the flow in `world`; what went wrong lands in world.problems. */
export async function runFlow(world: World): Promise<void> {
  const problems = world.problems;
  const expect = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };

  // deploy → provision → agent start → install, start
  await world.command('deploy mysql', (s) => deploy(s, { charm: charms.mysql, numUnits: 1 }));
  await world.command('deploy wordpress', (s) => deploy(s, { charm: charms.wordpress, numUnits: 1 }));
  await world.command('deploy logging', (s) => deploy(s, { charm: charms.logging }));
  let state = await world.converge('deploy');
  const unitsOf = (application: string) => state.units.filter((u) => u.application === application).map((u) => u.name);
  for (const application of PRINCIPALS) {
    expect(unitsOf(application).length === 1, `after deploy: ${application} has units ${unitsOf(application).join(', ') || 'none'}`);
  }
  const UNITS = PRINCIPALS.map((application) => unitsOf(application)[0] ?? `${application}/?`);
  const [, wordpress] = UNITS as [string, string];
  for (const name of UNITS) {
    const unit = state.units.find((u) => u.name === name);
    expect(
      unit?.life === 'alive' && unit.agentStatus.current === 'idle',
      `after deploy: ${name} is ${unit?.life}, agent ${unit?.agentStatus.current}`,
    );
  }
  const machines = state.machines.map((m) => m.id);
  expect(machines.length === 2, `after deploy: ${machines.length} machines, not 2`);
  for (const m of state.machines) {
    const live = world.provider.live().filter((i) => i.info.machineId === m.id);
    expect(
      m.instanceId !== undefined && live.length === 1 && live[0]!.info.instanceId === m.instanceId,
      `after deploy: machine ${m.id} records ${m.instanceId ?? 'no instance'}, live instances ${live.map((i) => i.info.instanceId).join(', ') || 'none'}`,
    );
  }

  // relate → enter scope → relation-joined writes each unit's settings; the container relation
  // creates wordpress's unit's subordinate, whose agent starts beside it
  await world.command('relate wordpress mysql', (s) => addRelation(s, ['wordpress', 'mysql']));
  await world.command('relate wordpress logging', (s) => addRelation(s, ['wordpress', 'logging']));
  state = await world.converge('relate');
  const subordinates = unitsOf(SUBORDINATE_APPLICATION);
  expect(subordinates.length === 1, `after relate: ${SUBORDINATE_APPLICATION} has units ${subordinates.join(', ') || 'none'}`);
  const SUBORDINATE = subordinates[0] ?? `${SUBORDINATE_APPLICATION}/?`;
  const subordinate = state.units.find((u) => u.name === SUBORDINATE);
  expect(
    subordinate?.life === 'alive' && subordinate.principal === wordpress && subordinate.agentStatus.current === 'idle',
    `after relate: ${SUBORDINATE} is ${subordinate?.life}, principal ${subordinate?.principal}, agent ${subordinate?.agentStatus.current}`,
  );
  for (const [apps, members] of [
    [['wordpress', 'mysql'], UNITS],
    [
      ['wordpress', 'logging'],
      [wordpress, SUBORDINATE],
    ],
  ] as const) {
    const relation = state.relations.find((r) => apps.every((a) => r.endpoints.some((e) => e.application === a)));
    expect(
      relation?.life === 'alive' && relation.unitCount === 2,
      `after relate: relation ${apps.join(' ')} is ${relation?.life}, ${relation?.unitCount} in scope`,
    );
    if (!relation) continue;
    for (const name of members) {
      const settings = await getSettings(world.observer, relation.id, name);
      expect(
        settings?.settings?.joined === name,
        `after relate: ${name}'s settings in ${relation.key} are ${JSON.stringify(settings?.settings)}`,
      );
    }
  }

  // destroy → units Dying → leave scope → Dead → removed; cleanup of the relation's settings
  await world.command('remove-application wordpress', (s) => destroyApplication(s, 'wordpress'));
  await world.command('remove-application mysql', (s) => destroyApplication(s, 'mysql'));
  await world.command('remove-application logging', (s) => destroyApplication(s, 'logging'));
  state = await world.converge('remove-application');
  expect(
    state.units.length === 0 && state.applications.length === 0,
    `after remove-application: ${state.units.length} units, ${state.applications.length} applications left`,
  );

  // Machines made for the units go with them; any left is removed by the user: Dying → Dead (its
  // agent) → instance stopped, machine and queue removed.
  const left = state.machines.map((m) => m.id);
  for (const id of left) await world.command(`remove-machine ${id}`, (s) => destroyMachine(s, id));
  if (left.length > 0) state = await world.converge('remove-machine');
  for (const left of everythingRemoved(state)) problems.push(`at the end: ${left}`);
  const live = world.provider.live().map((i) => i.info.instanceId);
  expect(live.length === 0, `at the end: instances left running: ${live.join(', ')}`);
  const queues = await world.machineQueues();
  expect(queues.length === 0, `at the end: machine queues left: ${queues.join(', ')}`);

  // No instance duplicated: one per machine (and attempt), whatever was retried.
  for (const id of machines) {
    const made = [...world.provider.instances.values()].filter((i) => i.info.machineId === id).length;
    expect(made === 1, `machine ${id} got ${made} instances`);
  }
  // Juju promises install and start once.
  for (const name of [...UNITS, SUBORDINATE]) {
    for (const hook of ['install', 'start']) {
      const runs = world.hookRuns.get(`${name} ${hook}`) ?? 0;
      expect(runs === 1, `${name} ran ${hook} ${runs} times`);
    }
  }
}
