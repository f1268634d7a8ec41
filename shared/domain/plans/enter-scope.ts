// A unit agent joins a relation: it enters the relation's scope and writes its initial settings.
//
// lifecycles.txt: "While a relation is Alive, units of services in that relation can enter its
// scope; that is, the UAs for those units can signal to the system that they are participating
// in the relation", and "While a principal unit is Alive, it can enter the scopes of Alive
// relations, which may cause the creation of subordinate units". charms-in-action.txt: "Write initial
// relation settings (just one value, private-address) ... Signal its existence".
import { checkSettingsSize } from '../item-size.js';
import type { Application, Relation, ScopeMember, Unit } from '../entities.js';
import { invalidArgument, notAlive } from '../errors.js';
import { createUnit, done, refs, type Change, type Expect, type Plan } from '../plan.js';
import { pendingRequirements } from '../required-relations.js';
import { sequenceNames, type Numbers } from '../sequences.js';
import { scopeShardsAfter, unitShardsAfter } from '../shards.js';

export interface EnterScopeSnapshot {
  unit?: Unit;
  relation?: Relation;
  /** True when the unit's scope member already exists. */
  inScope: boolean;
  /** The version of the unit's settings for this relation, if any survive from before. */
  settingsVersion?: number;
  /**
   * Read only when a principal enters a container-scoped relation with a subordinate
   * application: that application and its relations.
   */
  subordinate?: {
    application: Application;
    relations: Relation[];
    /** Where the new subordinate's number comes from. */
    numbers: Numbers;
    /** The principal's existing subordinate of that application (undefined: none, or not found). */
    existing?: Unit;
  };
}

export interface EnterScopeResult {
  /** The subordinate unit created by this entry, if any. */
  subordinate?: string;
}

const NOT_ALIVE = 'cannot enter scope: unit or relation is not alive';

/** The subordinate application a principal unit's entry into `relation` may create a unit of. */
export function subordinateToCreate(
  unit: Pick<Unit, 'application' | 'principal'>,
  relation: Relation,
  applications: Pick<Application, 'name' | 'subordinate'>[],
) {
  if (relation.scope !== 'container' || unit.principal !== undefined) return undefined;
  const other = relation.endpoints.find((ep) => ep.application !== unit.application);
  const app = applications.find((a) => a.name === other?.application);
  return app?.subordinate ? app.name : undefined;
}

/** A principal has at most one subordinate of each application: its name starts with `<app>/`. */
export const subordinateOfApplication = (principal: Pick<Unit, 'subordinates'>, application: string) =>
  principal.subordinates.find((name) => name.startsWith(`${application}/`));

export function planEnterScope(snapshot: EnterScopeSnapshot, settings: Record<string, string>, now: string): Plan<EnterScopeResult> {
  const { unit, relation } = snapshot;
  if (!unit || !relation) throw notAlive(NOT_ALIVE);
  if (!relation.endpoints.some((ep) => ep.application === unit.application)) {
    throw invalidArgument(`application "${unit.application}" is not a member of "${relation.key}"`);
  }
  const changes: Change[] = [];
  if (!snapshot.inScope) {
    // The scope's layout grows on the relation item this entry writes anyway (shared/domain/shards.ts).
    const grown = scopeShardsAfter(relation, relation.unitCount + 1);
    if (unit.life !== 'alive' || relation.life !== 'alive') throw notAlive(NOT_ALIVE);
    checkSettingsSize(settings, `the settings of unit "${unit.name}" in relation "${relation.key}"`);
    changes.push(
      { op: 'create', ref: refs.scope(relation, unit.name), value: scopeMember(relation.key, unit) },
      {
        op: 'update',
        ref: refs.relation(relation.key),
        add: { unitCount: 1 },
        ...(grown !== undefined ? { set: { scopeShards: grown } } : {}),
        expect: { life: 'alive' },
      },
      {
        op: 'update',
        ref: refs.unit(unit.name),
        addToSet: { scopes: [relation.key] },
        expect: { life: 'alive', lacks: { scopes: relation.key } },
      },
      initialSettings(relation.id, unit.name, settings, snapshot.settingsVersion),
    );
  }
  const created = planSubordinate(snapshot, now);
  changes.push(...created.changes);
  const result: EnterScopeResult = created.name !== undefined ? { subordinate: created.name } : {};
  return changes.length ? { changes, result } : done(result);
}

const scopeMember = (relation: string, unit: Unit) =>
  ({ relation, unit: unit.name, ...(unit.machine !== undefined ? { machine: unit.machine } : {}) }) satisfies ScopeMember;

/**
 * The unit's initial settings, replacing any left from an earlier stay in scope. The version
 * read is asserted, so it only ever grows: watchers compare versions to see a change.
 */
function initialSettings(relationId: number, unit: string, settings: Record<string, string>, version: number | undefined): Change {
  const ref = refs.settings(relationId, unit);
  if (version === undefined) return { op: 'create', ref, value: { relationId, unit, settings, version: 1 } };
  return { op: 'update', ref, set: { settings, version: version + 1 }, expect: { equals: { version } } };
}

/**
 * The subordinate a principal's entry creates: exactly one per principal and subordinate
 * application (Juju's https://github.com/juju/juju/blob/2.9/state/relationunit_test.go). A
 * principal already in scope whose subordinate is missing gets it on entering again, so the agent
 * (or the cleanup that runs once the subordinate's required relations are met) can simply enter
 * again.
 */
function planSubordinate(snapshot: EnterScopeSnapshot, now: string): { name?: string; changes: Change[] } {
  const nothing = { changes: [] };
  const { unit, relation, subordinate } = snapshot;
  if (!unit || !relation || !subordinate) return nothing;
  if (unit.life !== 'alive' || relation.life !== 'alive') return nothing; // already in scope, on its way out
  const app = subordinate.application;
  const existingName = subordinateOfApplication(unit, app.name);
  if (existingName !== undefined) {
    if (snapshot.inScope) return nothing;
    if (subordinate.existing?.life !== 'alive') throw notAlive('cannot enter scope yet: non-alive subordinate unit has not been removed');
    // The entry relies on that subordinate being Alive: a Dying one is on its way out and would
    // leave the principal without one.
    return { changes: [{ op: 'check', ref: refs.unit(existingName), expect: { life: 'alive' } }] };
  }
  // An Alive relation implies Alive applications (destroying one makes its relations Dying).
  if (app.life !== 'alive') throw notAlive(NOT_ALIVE);
  // required-relations-proposal.txt: "Both the required relation and the principal side of the
  // relation must be deployed before a subordinate is deployed" — so no subordinate yet; entering
  // again once the required relations are added creates it.
  const required = app.charm.endpoints.some((ep) => ep.required);
  if (pendingRequirements(app, subordinate.relations).length > 0) return nothing;

  const name = `${app.name}/${subordinate.numbers.take(sequenceNames.unitsOf(app.name), 1)[0]}`;
  const sub: Unit = {
    name,
    application: app.name,
    series: app.series,
    life: 'alive',
    principal: unit.name,
    subordinates: [],
    constraints: {},
    scopes: [],
    agentStatus: { current: 'allocating', since: now },
    workloadStatus: { current: 'waiting', message: 'agent initializing', since: now },
    openPorts: [],
    createdAt: now,
    // A subordinate runs on its principal's machine.
    ...(unit.machine !== undefined ? { machine: unit.machine } : {}),
  };
  // "No two": the principal's subordinate set is asserted unchanged, so a concurrent entry cannot
  // add a second subordinate of the same application.
  const principalExpect: Expect = {
    life: 'alive',
    setSize: { subordinates: unit.subordinates.length },
    ...(unit.machine !== undefined ? { equals: { machine: unit.machine } } : { absent: ['machine'] }),
  };
  const appExpect: Expect = { life: 'alive' };
  const grownUnits = unitShardsAfter(app, app.unitCount + 1);
  // The pending check read the subordinate application's relations.
  if (required) appExpect.setSize = { relations: app.relations.length };
  return {
    name,
    changes: [
      { op: 'check', ref: refs.relation(relation.key), expect: { life: 'alive' } },
      createUnit(app, name, { ...sub }),
      { op: 'update', ref: refs.unit(unit.name), addToSet: { subordinates: [name] }, expect: principalExpect },
      {
        op: 'update',
        ref: refs.application(app.name),
        add: { unitCount: 1 },
        ...(grownUnits !== undefined ? { set: { unitShards: grownUnits } } : {}),
        expect: appExpect,
      },
    ],
  };
}
