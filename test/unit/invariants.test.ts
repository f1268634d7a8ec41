// The model property's newer invariants (test/support/invariants.ts) say something: each finds
// the violation it is about in a state that has it, and none in the same state without it.
import { describe, expect, it } from 'vitest';
import type { Machine, Unit } from '#shared/domain/entities.js';
import { credentialsBelongToMachines, dyingPrincipalsHaveNoAliveSubordinates, statusesMatchFacts } from '../support/invariants.js';
import type { ModelState } from '../support/model-state.js';

const since = '2024-01-01T00:00:00Z';
const unit = (name: string, fields: Partial<Unit> = {}): Unit => ({
  name,
  application: name.split('/')[0]!,
  series: 'jammy',
  life: 'alive',
  subordinates: [],
  constraints: {},
  scopes: [],
  agentStatus: { current: 'idle', since },
  workloadStatus: { current: 'active', since },
  openPorts: [],
  createdAt: since,
  ...fields,
});
const machine = (id: string, fields: Partial<Machine> = {}): Machine => ({
  id,
  life: 'alive',
  series: 'jammy',
  constraints: {},
  principals: [],
  provisioningAttempt: 0,
  agentStatus: { current: 'started', since },
  instanceStatus: { current: 'running', since },
  instanceId: `i-${id}`,
  addresses: [],
  createdAt: since,
  ...fields,
});
const state = (units: Unit[], machines: Machine[] = [], items: Record<string, unknown>[] = []): ModelState => ({
  applications: [],
  units,
  machines,
  relations: [],
  scopes: [],
  settings: [],
  cleanups: [],
  items,
});

describe('model invariants', () => {
  it('a principal that is not Alive has no Alive subordinate', () => {
    const principal = (life: Unit['life']) => unit('wordpress/0', { life, subordinates: ['logging/0'] });
    const sub = (life: Unit['life']) => unit('logging/0', { life, principal: 'wordpress/0' });
    expect(dyingPrincipalsHaveNoAliveSubordinates(state([principal('dying'), sub('alive')]))).toEqual([
      'dying principal wordpress/0 has Alive subordinate logging/0',
    ]);
    expect(dyingPrincipalsHaveNoAliveSubordinates(state([principal('dying'), sub('dying')]))).toEqual([]);
    expect(dyingPrincipalsHaveNoAliveSubordinates(state([principal('alive'), sub('alive')]))).toEqual([]);
  });

  it('instance statuses agree with the instance, and an allocating unit has no scopes or subordinates', () => {
    expect(statusesMatchFacts(state([], [machine('0', { instanceId: undefined })]))).toEqual([
      'machine 0 shows instance status running but has no instance',
    ]);
    expect(statusesMatchFacts(state([], [machine('0', { instanceStatus: { current: 'pending', since } })]))).toEqual([
      'machine 0 shows instance status pending but has instance i-0',
    ]);
    expect(statusesMatchFacts(state([unit('mysql/0', { agentStatus: { current: 'allocating', since }, scopes: ['r'] })]))).toHaveLength(1);
    expect(statusesMatchFacts(state([unit('mysql/0', { scopes: ['r'] })], [machine('0')]))).toEqual([]);
  });

  it('a credential hash belongs to one of its machine’s attempts, and only machines hold one', () => {
    expect(credentialsBelongToMachines(state([], [machine('0', { agentCredentialHash: 'h', agentCredentialAttempt: 1 })]))).toEqual([
      'machine 0 has a credential for attempt 1, past its attempt 0',
    ]);
    expect(credentialsBelongToMachines(state([], [machine('0', { agentCredentialHash: 'h' })]))).toHaveLength(1);
    expect(credentialsBelongToMachines(state([], [], [{ pk: 'm#u', entity: 'unit', agentCredentialHash: 'h' }]))).toEqual([
      'a unit item (m#u) holds an agent credential hash',
    ]);
    expect(credentialsBelongToMachines(state([], [machine('0', { agentCredentialHash: 'h', agentCredentialAttempt: 0 })]))).toEqual([]);
  });
});
