// Entities in the shape the store reads them, for the destruction plan tests.
import type { Application, Machine, Relation, Unit } from '#shared/domain/entities.js';
import type { RelationEndpoint } from '#shared/domain/relation-endpoints.js';
import { charms } from '../../support/charms.js';

export const NOW = '2024-01-01T00:00:00.000Z';

export function app(name: string, fields: Partial<Application> = {}): Application {
  return {
    name,
    life: 'alive',
    series: 'jammy',
    subordinate: false,
    charmUrl: `local:jammy/${name}-0`,
    charm: charms.mysql,
    constraints: {},
    constraintsVersion: 0,
    config: {},
    configVersion: 0,
    exposed: false,
    unitCount: 0,
    relations: [],
    createdAt: NOW,
    ...fields,
  };
}

export function unit(name: string, fields: Partial<Unit> = {}): Unit {
  return {
    name,
    application: name.split('/')[0]!,
    series: 'jammy',
    life: 'alive',
    subordinates: [],
    constraints: {},
    scopes: [],
    agentStatus: { current: 'idle', since: NOW },
    workloadStatus: { current: 'active', since: NOW },
    openPorts: [],
    createdAt: NOW,
    ...fields,
  };
}

export function machine(id: string, fields: Partial<Machine> = {}): Machine {
  return {
    id,
    life: 'alive',
    series: 'jammy',
    constraints: {},
    principals: [],
    provisioningAttempt: 0,
    agentStatus: { current: 'started', since: NOW },
    instanceStatus: { current: 'running', since: NOW },
    addresses: [],
    createdAt: NOW,
    ...fields,
  };
}

const endpoint = (
  application: string,
  name: string,
  role: RelationEndpoint['role'],
  scope: RelationEndpoint['scope'],
): RelationEndpoint => ({
  application,
  name,
  role,
  interface: name,
  scope,
  required: false,
});

/** A relation between `requirer` and `provider` ("app:endpoint" each), or a peer relation of one. */
export function relation(id: number, ends: string[], fields: Partial<Relation> = {}): Relation {
  const scope = fields.scope ?? 'global';
  const roles: RelationEndpoint['role'][] = ends.length === 1 ? ['peer'] : ['requirer', 'provider'];
  const endpoints = ends.map((e, i) => {
    const [application, name] = e.split(':') as [string, string];
    return endpoint(application, name, roles[i]!, scope);
  });
  return { key: ends.join(' '), id, life: 'alive', endpoints, scope, unitCount: 0, createdAt: NOW, ...fields };
}
