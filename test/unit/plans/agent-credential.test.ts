import { describe, expect, it } from 'vitest';
import { planSetAgentCredentialHash } from '#shared/domain/plans/agent-credential.js';
import { machine } from './destruction-fixtures.js';

const unprovisioned = (fields = {}) => machine('1', { instanceStatus: { current: 'pending', since: '' }, ...fields });

describe('planSetAgentCredentialHash', () => {
  it('stores the hash for the current attempt, asserting the attempt and that no instance is recorded', () => {
    expect(planSetAgentCredentialHash(unprovisioned({ provisioningAttempt: 2 }), { id: '1', hash: 'sha256:h', attempt: 2 })).toEqual({
      changes: [
        {
          op: 'update',
          ref: { kind: 'machine', id: '1' },
          set: { agentCredentialHash: 'sha256:h', agentCredentialAttempt: 2 },
          expect: { life: 'alive', absent: ['instanceId'], equals: { provisioningAttempt: 2 } },
        },
      ],
      result: 'set',
    });
  });

  it('the same hash for the same attempt is already set', () => {
    const m = unprovisioned({ agentCredentialHash: 'sha256:h', agentCredentialAttempt: 0 });
    expect(planSetAgentCredentialHash(m, { id: '1', hash: 'sha256:h', attempt: 0 })).toEqual({ changes: [], result: 'already-set' });
  });

  it('refuses a stale attempt, a provisioned machine, a machine that is not Alive or is gone', () => {
    const intent = { id: '1', hash: 'sha256:h', attempt: 0 };
    expect(planSetAgentCredentialHash(unprovisioned({ provisioningAttempt: 1 }), intent).result).toEqual({
      conflict: 'machine 1 is at provisioning attempt 1',
    });
    expect(planSetAgentCredentialHash(machine('1', { instanceId: 'i-1' }), intent).result).toEqual({
      conflict: 'machine 1 already has instance i-1',
    });
    expect(planSetAgentCredentialHash(unprovisioned({ life: 'dying' }), intent).result).toEqual({ conflict: 'machine 1 is not alive' });
    expect(planSetAgentCredentialHash(undefined, intent).result).toEqual({ conflict: 'machine 1 not found' });
  });
});
