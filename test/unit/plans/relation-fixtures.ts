// Applications, units and relations in the shape the store reads them, for the relation plan tests.
import { charmEndpoints } from '#shared/domain/charm.js';
import type { Application, Relation, Unit } from '#shared/domain/entities.js';
import { inferRelation, relationKey, relationScope } from '#shared/domain/relation-endpoints.js';
import { charms } from '../../support/charms.js';

export const NOW = '2024-01-01T00:00:00.000Z';

type CharmName = keyof typeof charms;

export function application(charm: CharmName, fields: Partial<Application> = {}): Application {
  const meta = charms[charm];
  return {
    name: charm,
    life: 'alive',
    series: 'jammy',
    subordinate: meta.subordinate,
    charmUrl: `local:jammy/${charm}-0`,
    charm: meta,
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

/** The relation `relate args` would make between `apps`, with the given id and fields. */
export function relation(apps: Application[], args: string[], id: number, fields: Partial<Relation> = {}): Relation {
  const lookup = (name: string) => {
    const app = apps.find((a) => a.name === name);
    return app && { application: app.name, series: app.series, subordinate: app.subordinate, endpoints: charmEndpoints(app.charm) };
  };
  const endpoints = inferRelation(args, lookup);
  return {
    key: relationKey(endpoints),
    id,
    life: 'alive',
    endpoints,
    scope: relationScope(endpoints),
    unitCount: 0,
    createdAt: NOW,
    ...fields,
  };
}

/** Puts each relation's key into its applications' relation sets. */
export function linked(apps: Application[], relations: Relation[]): Application[] {
  return apps.map((a) => ({
    ...a,
    relations: relations.filter((r) => r.endpoints.some((ep) => ep.application === a.name)).map((r) => r.key),
  }));
}
