import type { Constraints } from '../constraints.js';
import type { Machine } from '../entities.js';

/** A machine as it starts out: Alive, no instance, waiting for the provisioner. */
export function newMachine(id: string, series: string, constraints: Constraints, now: string): Machine {
  return {
    id,
    life: 'alive',
    series,
    constraints,
    principals: [],
    provisioningAttempt: 0,
    agentStatus: { current: 'pending', since: now },
    instanceStatus: { current: 'pending', since: now },
    addresses: [],
    createdAt: now,
  };
}
