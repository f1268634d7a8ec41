// Status reported by agents (shared/domain/plans/agent-status.ts decides). Speculative: each
// update asserts that its entity exists, the one fact read.
import { planSetMachineAgentStatus, planSetUnitStatus, type StatusInput } from '../../domain/plans/agent-status.js';
import { getMachine, getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export async function setUnitStatus(store: Store, name: string, status: { agent?: StatusInput; workload?: StatusInput }): Promise<void> {
  await runOperation(
    store,
    `cannot set status of unit "${name}"`,
    async (store) => planSetUnitStatus(await getUnit(store, name), name, status, store.now().toISOString()),
    { speculate: true },
  );
}

export async function setMachineAgentStatus(store: Store, id: string, status: StatusInput): Promise<void> {
  await runOperation(
    store,
    `cannot set status of machine ${id}`,
    async (store) => planSetMachineAgentStatus(await getMachine(store, id), id, status, store.now().toISOString()),
    { speculate: true },
  );
}
