// Status reported by agents: the unit agent's own status (allocating → executing → idle, error)
// and the workload status set by the charm (status-set), and the machine agent's status.
import type { StatusInfo } from '../../domain/entities.js';
import { notFound } from '../../domain/errors.js';
import { refs, type Change } from '../../domain/plan.js';
import { statusLogEntry } from '../../domain/status-log.js';
import { getMachine, getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

type StatusInput = Omit<StatusInfo, 'since'>;

export async function setUnitStatus(store: Store, name: string, status: { agent?: StatusInput; workload?: StatusInput }): Promise<void> {
  // Speculative: the update asserts that the unit exists, the one fact read.
  await runOperation(
    store,
    `cannot set status of unit "${name}"`,
    async (store) => {
      if (!(await getUnit(store, name))) throw notFound(`unit "${name}" not found`);
      const since = store.now().toISOString();
      const set: Record<string, unknown> = {};
      const changes: Change[] = [];
      if (status.agent) {
        set.agentStatus = { ...status.agent, since };
        changes.push(statusLogEntry(name, 'juju-unit', status.agent, since));
      }
      if (status.workload) {
        set.workloadStatus = { ...status.workload, since };
        changes.push(statusLogEntry(name, 'workload', status.workload, since));
      }
      // Status is not a lifecycle fact: it needs the unit to exist, nothing more.
      return { changes: [{ op: 'update', ref: refs.unit(name), set }, ...changes], result: undefined };
    },
    { speculate: true },
  );
}

export async function setMachineAgentStatus(store: Store, id: string, status: StatusInput): Promise<void> {
  await runOperation(
    store,
    `cannot set status of machine ${id}`,
    async (store) => {
      if (!(await getMachine(store, id))) throw notFound(`machine ${id} not found`);
      const since = store.now().toISOString();
      return {
        changes: [
          { op: 'update', ref: refs.machine(id), set: { agentStatus: { ...status, since } } },
          statusLogEntry(id, 'juju-machine', status, since),
        ],
        result: undefined,
      };
    },
    { speculate: true },
  );
}
