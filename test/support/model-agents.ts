// The agents and the provisioner of one model, reduced to the state operations their routes call
// (agent/uniter/decide.ts decides the same steps; shared/provisioner/reconcile-machine.ts removes
// machines never provisioned), over any model's store. The agent API serves one model per
// controller for now, so tests of a second model play their part here instead of running agents.
// A unit whose agent is in error does nothing, as a real one waits for `resolved`.
import type { Application, Unit } from '#shared/domain/entities.js';
import { isDroverError } from '#shared/domain/errors.js';
import { collections } from '#shared/state/engine/keys.js';
import { getApplication, getMany, getMachine, getUnit, listAll } from '#shared/state/engine/reads.js';
import { listAllUnits } from '#shared/state/engine/unit-listing.js';
import type { Store } from '#shared/state/engine/store.js';
import { refs } from '#shared/domain/plan.js';
import { destroyUnitByAgent } from '#shared/state/operations/destroy-unit.js';
import { leaveScope } from '#shared/state/operations/leave-scope.js';
import { ensureMachineDead } from '#shared/state/operations/machine-dead.js';
import { removeMachine } from '#shared/state/operations/remove-machine.js';
import { removeUnit } from '#shared/state/operations/remove-unit.js';
import { ensureSubordinateDying } from '#shared/state/operations/subordinate-dying.js';
import { ensureUnitDead } from '#shared/state/operations/unit-dead.js';

/** A step refused for now (a principal waiting for its subordinates): the next turn tries again. */
async function step(action: () => Promise<unknown>): Promise<void> {
  try {
    await action();
  } catch (e) {
    if (!isDroverError(e)) throw e;
  }
}

async function unitTurn(store: Store, unit: Unit): Promise<void> {
  if (unit.agentStatus.current === 'error') return;
  if (unit.life === 'alive') {
    if (unit.principal !== undefined) await step(() => ensureSubordinateDying(store, unit.name));
    else if ((await getApplication(store, unit.application))?.life === 'dying') await step(() => destroyUnitByAgent(store, unit.name));
  }
  const now = await getUnit(store, unit.name);
  if (now?.life === 'dying') {
    for (const relation of now.scopes) await step(() => leaveScope(store, unit.name, relation));
    await step(() => ensureUnitDead(store, unit.name));
  }
  if ((await getUnit(store, unit.name))?.life === 'dead') await step(() => removeUnit(store, unit.name));
}

/** One turn of every unit agent, machine agent and the provisioner of the store's model. */
export async function agentsTurn(store: Store): Promise<void> {
  const applications = await getMany<Application>(store, await listAll(store, collections.applications(store.model)));
  for (const application of applications) {
    const names = (await listAllUnits(store, application)).flatMap((r) => (r.kind === 'unit' ? [r.name] : []));
    for (const unit of await getMany<Unit>(store, names.map(refs.unit))) await unitTurn(store, unit);
  }
  for (const shard of collections.machineShards(store.model)) {
    for (const ref of await listAll(store, shard)) {
      if (ref.kind !== 'machine') continue;
      const machine = await getMachine(store, ref.id);
      if (machine?.life === 'dying' && machine.principals.length === 0) await step(() => ensureMachineDead(store, ref.id));
      if ((await getMachine(store, ref.id))?.life === 'dead') await step(() => removeMachine(store, ref.id));
    }
  }
}
