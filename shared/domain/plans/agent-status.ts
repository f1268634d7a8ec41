// Status reported by agents: the unit agent's own status (allocating → executing → idle, error),
// the workload status set by the charm (status-set), and the machine agent's status. Each report
// is kept in the entity's status history too (shared/domain/status-log.ts).
import type { Machine, StatusInfo, Unit } from '../entities.js';
import { notFound } from '../errors.js';
import { refs, type Change, type Plan } from '../plan.js';
import { statusLogEntry } from '../status-log.js';

export type StatusInput = Omit<StatusInfo, 'since'>;

export function planSetUnitStatus(
  unit: Unit | undefined,
  name: string,
  status: { agent?: StatusInput; workload?: StatusInput },
  since: string,
): Plan<void> {
  if (!unit) throw notFound(`unit "${name}" not found`);
  const set: Record<string, unknown> = {};
  const history: Change[] = [];
  if (status.agent) {
    set.agentStatus = { ...status.agent, since };
    history.push(statusLogEntry(name, 'juju-unit', status.agent, since));
  }
  if (status.workload) {
    set.workloadStatus = { ...status.workload, since };
    history.push(statusLogEntry(name, 'workload', status.workload, since));
  }
  // Status is not a lifecycle fact: it needs the unit to exist, nothing more.
  return { changes: [{ op: 'update', ref: refs.unit(name), set }, ...history], result: undefined };
}

export function planSetMachineAgentStatus(machine: Machine | undefined, id: string, status: StatusInput, since: string): Plan<void> {
  if (!machine) throw notFound(`machine ${id} not found`);
  return {
    changes: [
      { op: 'update', ref: refs.machine(id), set: { agentStatus: { ...status, since } } },
      statusLogEntry(id, 'juju-machine', status, since),
    ],
    result: undefined,
  };
}
