// The machine agent's credential, as state keeps it: only its hash, set by the provisioner while
// it provisions the machine (docs/architecture.md, 'Agents are least-privileged': each machine agent
// gets its own credential at provisioning, stored hashed).
//
// The hash is tied to a provisioning attempt: a provisioner holding an old snapshot of the
// machine (a retry-provisioning happened since) must not replace the credential of the current
// attempt, and once an instance is recorded its agent's credential is fixed.
import type { Machine } from '../entities.js';
import { done, refs, type Plan } from '../plan.js';

export type SetAgentCredentialResult = 'set' | 'already-set' | { conflict: string };

export function planSetAgentCredentialHash(
  machine: Machine | undefined,
  intent: { id: string; hash: string; attempt: number },
): Plan<SetAgentCredentialResult> {
  if (!machine) return done({ conflict: `machine ${intent.id} not found` });
  if (machine.agentCredentialHash === intent.hash && machine.agentCredentialAttempt === intent.attempt) return done('already-set');
  if (machine.life !== 'alive') return done({ conflict: `machine ${intent.id} is not alive` });
  if (machine.provisioningAttempt !== intent.attempt) {
    return done({ conflict: `machine ${intent.id} is at provisioning attempt ${machine.provisioningAttempt}` });
  }
  if (machine.instanceId) return done({ conflict: `machine ${intent.id} already has instance ${machine.instanceId}` });
  return {
    changes: [
      {
        op: 'update',
        ref: refs.machine(machine.id),
        set: { agentCredentialHash: intent.hash, agentCredentialAttempt: intent.attempt },
        expect: { life: 'alive', absent: ['instanceId'], equals: { provisioningAttempt: intent.attempt } },
      },
    ],
    result: 'set',
  };
}
