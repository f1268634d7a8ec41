// The model's invariants, checked by the model property test (test/integration/model-property.test.ts)
// against a whole-table picture after every step. Each returns the violations it finds, in words
// that name the entities, so a failing run says what went wrong rather than only that it did.
import type { Life } from '#shared/domain/life.js';
import { isForward } from '#shared/domain/life.js';
import { ATTR } from '#shared/state/engine/keys.js';
import { indexState, type ModelState } from './model-state.js';

export type Invariant = (state: ModelState) => string[];

/**
 * Each entity's life as last seen, across the steps of one sequence. Identities are never reused:
 * unit names and machine ids come from sequences, relations have ids from a sequence, and an
 * application deployed again under the same name is a new one (its creation time).
 */
export class LifeHistory {
  private readonly seen = new Map<string, Life>();
  private readonly removed = new Set<string>();

  /**
   * lifecycles.txt: "All such things start existence Alive" and "No such thing can ever change
   * to an earlier state" — Alive → Dying → Dead → removed, and a removed thing never comes back.
   * Applications and relations "become Dead and are removed from the database in a single
   * operation", so they are never seen Dead.
   */
  lifeNeverGoesBackwards(state: ModelState): string[] {
    const violations: string[] = [];
    const now = new Map<string, Life>();
    for (const a of state.applications) now.set(`application ${a.name} (created ${a.createdAt})`, a.life);
    for (const u of state.units) now.set(`unit ${u.name}`, u.life);
    for (const m of state.machines) now.set(`machine ${m.id}`, m.life);
    for (const r of state.relations) now.set(`relation ${r.id} (${r.key})`, r.life);
    for (const a of state.applications) if (a.life === 'dead') violations.push(`application ${a.name} is observed Dead`);
    for (const r of state.relations) if (r.life === 'dead') violations.push(`relation ${r.key} is observed Dead`);
    for (const [id, life] of now) {
      if (this.removed.has(id)) violations.push(`${id} was removed, and is back (${life})`);
      // First seen not Alive is fine: one step may both create a thing and move it on.
      const before = this.seen.get(id);
      if (before !== undefined && !isForward(before, life)) violations.push(`${id} went from ${before} back to ${life}`);
    }
    for (const id of this.seen.keys()) if (!now.has(id)) this.removed.add(id);
    this.seen.clear();
    for (const [id, life] of now) this.seen.set(id, life);
    return violations;
  }
}

/**
 * death-and-destruction.txt's counts: an application's "unit count" is its units that exist, its
 * "relation count" the relations it is in; a relation's unit count is the units in its scope.
 */
export const countsMatch: Invariant = (state) => {
  const violations: string[] = [];
  for (const app of state.applications) {
    const units = state.units.filter((u) => u.application === app.name).length;
    if (app.unitCount !== units) violations.push(`application ${app.name} has unitCount ${app.unitCount} but ${units} units exist`);
    const expected = state.relations
      .filter((r) => r.endpoints.some((ep) => ep.application === app.name))
      .map((r) => r.key)
      .sort();
    const actual = [...app.relations].sort();
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      violations.push(`application ${app.name} has relations ${JSON.stringify(actual)} but is an endpoint of ${JSON.stringify(expected)}`);
    }
  }
  for (const r of state.relations) {
    const members = state.scopes.filter((s) => s.relation === r.key).length;
    if (r.unitCount !== members) violations.push(`relation ${r.key} has unitCount ${r.unitCount} but ${members} units in scope`);
  }
  return violations;
};

/** A machine has one series: a unit (principal, or subordinate on its principal's machine) runs only on a machine of its own. */
export const seriesMatch: Invariant = (state) => {
  const { machines } = indexState(state);
  const violations: string[] = [];
  for (const u of state.units) {
    const m = u.machine !== undefined ? machines.get(u.machine) : undefined;
    if (m && m.series !== u.series) violations.push(`unit ${u.name} (${u.series}) is on machine ${m.id} (${m.series})`);
  }
  return violations;
};

/**
 * lifecycles.txt "References": subordinates reference principals, principals machines, units
 * their services and the relations whose scopes they joined, relations their services — none of
 * them may outlive what they reference. And nothing Dead still takes part: "may not become Dead
 * ... while the unit is in scope for any relation", a Dead machine has no principals. Cleanup
 * targets may be gone (that is what they clean up); settings of a removed relation must be
 * scheduled for deletion.
 */
export const noDanglingReferences: Invariant = (state) => {
  const { applications, units, machines, relations } = indexState(state);
  const violations: string[] = [];
  for (const m of state.machines) {
    for (const p of m.principals) if (!units.has(p)) violations.push(`machine ${m.id} lists removed principal ${p}`);
    if (m.life === 'dead' && m.principals.length) violations.push(`Dead machine ${m.id} has principals ${m.principals.join(', ')}`);
  }
  for (const u of state.units) {
    if (!applications.has(u.application)) violations.push(`unit ${u.name} belongs to removed application ${u.application}`);
    if (u.machine !== undefined && !machines.has(u.machine)) violations.push(`unit ${u.name} is on removed machine ${u.machine}`);
    if (u.principal !== undefined && !units.has(u.principal)) violations.push(`unit ${u.name} has removed principal ${u.principal}`);
    for (const s of u.subordinates) if (!units.has(s)) violations.push(`unit ${u.name} lists removed subordinate ${s}`);
    for (const key of u.scopes) {
      if (!relations.has(key)) violations.push(`unit ${u.name} is in scope of removed relation ${key}`);
      if (!state.scopes.some((s) => s.relation === key && s.unit === u.name))
        violations.push(`unit ${u.name} lists scope ${key} without a scope member`);
    }
    if (u.life === 'dead' && (u.scopes.length || u.subordinates.length)) {
      violations.push(`Dead unit ${u.name} still has scopes [${u.scopes.join(', ')}] or subordinates [${u.subordinates.join(', ')}]`);
    }
  }
  for (const s of state.scopes) {
    if (!relations.has(s.relation)) violations.push(`scope member ${s.unit} of removed relation ${s.relation}`);
    const u = units.get(s.unit);
    if (!u) violations.push(`removed unit ${s.unit} is in scope of ${s.relation}`);
    else if (!u.scopes.includes(s.relation)) violations.push(`unit ${s.unit} is in scope of ${s.relation} but does not list it`);
  }
  for (const r of state.relations) {
    for (const ep of r.endpoints) {
      if (!applications.has(ep.application)) violations.push(`relation ${r.key} has removed application ${ep.application}`);
    }
  }
  const liveIds = new Set(state.relations.map((r) => r.id));
  const scheduled = new Set(state.cleanups.filter((c) => c.kind === 'settings').map((c) => Number(c.target)));
  for (const s of state.settings) {
    if (!liveIds.has(s.relationId) && !scheduled.has(s.relationId)) {
      violations.push(`settings of ${s.unit} in removed relation ${s.relationId} are not scheduled for cleanup`);
    }
  }
  return violations;
};

/** Relations' scopes hold units of their applications that are Alive or Dying (departing), never Dead. */
export const scopeMembersBelong: Invariant = (state) => {
  const { units, relations } = indexState(state);
  const violations: string[] = [];
  for (const s of state.scopes) {
    const u = units.get(s.unit);
    const r = relations.get(s.relation);
    if (!u || !r) continue; // noDanglingReferences says so
    if (!r.endpoints.some((ep) => ep.application === u.application))
      violations.push(`unit ${u.name} is in scope of ${r.key}, not a relation of ${u.application}`);
    if (u.life === 'dead') violations.push(`Dead unit ${u.name} is in scope of ${r.key}`);
  }
  return violations;
};

/** lifecycles.txt: "Services with duplicate names are not allowed (units and machine with duplicate names are not possible ...)". */
export const namesUnique: Invariant = (state) => {
  const violations: string[] = [];
  const duplicates = (kind: string, names: string[]) => {
    const seen = new Set<string>();
    for (const n of names) {
      if (seen.has(n)) violations.push(`two ${kind}s named ${n}`);
      seen.add(n);
    }
  };
  duplicates(
    'application',
    state.applications.map((a) => a.name),
  );
  duplicates(
    'unit',
    state.units.map((u) => u.name),
  );
  duplicates(
    'machine',
    state.machines.map((m) => m.id),
  );
  duplicates(
    'relation',
    state.relations.map((r) => r.key),
  );
  duplicates(
    'relation id',
    state.relations.map((r) => String(r.id)),
  );
  return violations;
};

/** "Subordinate units reference principal units": the principal exists, lists it, and hosts it on its machine. */
export const subordinatesHavePrincipals: Invariant = (state) => {
  const { units } = indexState(state);
  const violations: string[] = [];
  for (const u of state.units) {
    if (u.principal === undefined) continue;
    const p = units.get(u.principal);
    if (!p) continue; // noDanglingReferences says so
    if (!p.subordinates.includes(u.name)) violations.push(`principal ${p.name} does not list its subordinate ${u.name}`);
    if (p.principal !== undefined) violations.push(`subordinate ${u.name} has a subordinate principal ${p.name}`);
    if (u.machine !== p.machine)
      violations.push(`subordinate ${u.name} is on machine ${u.machine}, its principal ${p.name} on ${p.machine}`);
  }
  for (const p of state.units) {
    for (const s of p.subordinates) {
      const u = units.get(s);
      if (u && u.principal !== p.name) violations.push(`unit ${p.name} lists ${s} as subordinate, whose principal is ${u.principal}`);
    }
    const apps = p.subordinates.map((s) => s.split('/')[0]);
    if (new Set(apps).size !== apps.length)
      violations.push(`unit ${p.name} has two subordinates of one application: ${p.subordinates.join(', ')}`);
  }
  return violations;
};

/** "Principal units reference machines": a principal assigned to a machine is among its principals, and vice versa. */
export const assignmentsAgree: Invariant = (state) => {
  const { units, machines } = indexState(state);
  const violations: string[] = [];
  for (const u of state.units) {
    if (u.principal !== undefined || u.machine === undefined) continue;
    const m = machines.get(u.machine);
    if (m && !m.principals.includes(u.name)) violations.push(`unit ${u.name} is assigned to machine ${m.id}, which does not list it`);
  }
  for (const m of state.machines) {
    for (const p of m.principals) {
      const u = units.get(p);
      if (!u) continue; // noDanglingReferences says so
      if (u.principal !== undefined) violations.push(`machine ${m.id} lists subordinate ${p} as a principal`);
      if (u.machine !== m.id) violations.push(`machine ${m.id} lists ${p}, which is assigned to ${u.machine ?? 'no machine'}`);
    }
  }
  return violations;
};

/**
 * lifecycles.txt, as docs/lifecycle-rules.md states it: "destroying a principal destroys all its
 * subordinates" — they become Dying in the same transaction as the principal (the plan asserts
 * the set of subordinates it read), and a principal creates subordinates only while it is Alive
 * ("While a principal unit is Alive, it can enter the scopes of Alive relations, which may cause
 * the creation of subordinate units"). So there is no moment at which a principal that is not
 * Alive has an Alive subordinate.
 */
export const dyingPrincipalsHaveNoAliveSubordinates: Invariant = (state) => {
  const { units } = indexState(state);
  const violations: string[] = [];
  for (const p of state.units) {
    if (p.life === 'alive') continue;
    for (const s of p.subordinates) {
      const sub = units.get(s);
      if (sub?.life === 'alive') violations.push(`${p.life} principal ${p.name} has Alive subordinate ${s}`);
    }
  }
  return violations;
};

/**
 * Statuses agree with the facts they report: a machine's instance status is `running` only once
 * an instance is recorded, and `pending` (waiting for one) only while none is (recordInstance and
 * retry-provisioning set them with the instance id, in one transaction); a unit's agent status
 * is `allocating` only until its agent has started, so an allocating unit has entered no scope
 * and holds no subordinate (both are the started agent's doing).
 */
export const statusesMatchFacts: Invariant = (state) => {
  const violations: string[] = [];
  for (const m of state.machines) {
    if (m.instanceStatus.current === 'running' && m.instanceId === undefined)
      violations.push(`machine ${m.id} shows instance status running but has no instance`);
    if (m.instanceStatus.current === 'pending' && m.instanceId !== undefined)
      violations.push(`machine ${m.id} shows instance status pending but has instance ${m.instanceId}`);
  }
  for (const u of state.units) {
    if (u.agentStatus.current === 'allocating' && (u.scopes.length > 0 || u.subordinates.length > 0))
      violations.push(
        `unit ${u.name} is allocating (no agent yet) but has scopes [${u.scopes.join(', ')}] and subordinates [${u.subordinates.join(', ')}]`,
      );
  }
  return violations;
};

/**
 * Agent credentials (shared/domain/plans/agent-credential.ts): a machine holds at most the hash
 * of the credential of one of its own provisioning attempts, never a later one, and only while
 * it exists — the hash lives on the machine's item, so a removed machine keeps none.
 */
export const credentialsBelongToMachines: Invariant = (state) => {
  const violations: string[] = [];
  for (const m of state.machines) {
    if ((m.agentCredentialHash === undefined) !== (m.agentCredentialAttempt === undefined))
      violations.push(`machine ${m.id} has a credential hash without its attempt, or an attempt without a hash`);
    if (m.agentCredentialAttempt !== undefined && m.agentCredentialAttempt > m.provisioningAttempt)
      violations.push(
        `machine ${m.id} has a credential for attempt ${m.agentCredentialAttempt}, past its attempt ${m.provisioningAttempt}`,
      );
  }
  for (const item of state.items) {
    if (item['agentCredentialHash'] !== undefined && item[ATTR.kind] !== 'machine')
      violations.push(`a ${String(item[ATTR.kind])} item (${String(item[ATTR.pk])}) holds an agent credential hash`);
  }
  return violations;
};

export const invariants: Record<string, Invariant> = {
  countsMatch,
  seriesMatch,
  noDanglingReferences,
  scopeMembersBelong,
  namesUnique,
  subordinatesHavePrincipals,
  assignmentsAgree,
  dyingPrincipalsHaveNoAliveSubordinates,
  statusesMatchFacts,
  credentialsBelongToMachines,
};

/** Every violation of every invariant (life included, which also records this state in `history`). */
export function checkInvariants(state: ModelState, history: LifeHistory): string[] {
  const violations = history.lifeNeverGoesBackwards(state).map((v) => `lifeNeverGoesBackwards: ${v}`);
  for (const [name, invariant] of Object.entries(invariants)) violations.push(...invariant(state).map((v) => `${name}: ${v}`));
  return violations;
}

/**
 * death-and-destruction.txt: "If an entity is not removed immediately when it is destroyed, its
 * eventual removal is very likely": once everything is destroyed and every agent and cleanup has
 * done its part, nothing is left but the model and its sequences.
 */
export const everythingRemoved: Invariant = (state) => {
  const left = [
    ...state.applications.map((a) => `application ${a.name} (${a.life})`),
    ...state.units.map((u) => `unit ${u.name} (${u.life})`),
    ...state.machines.map((m) => `machine ${m.id} (${m.life})`),
    ...state.relations.map((r) => `relation ${r.key} (${r.life}, ${r.unitCount} in scope)`),
    ...state.scopes.map((s) => `scope member ${s.unit} of ${s.relation}`),
    ...state.settings.map((s) => `settings of ${s.unit} in relation ${s.relationId}`),
    ...state.cleanups.map((c) => `cleanup ${c.id}`),
  ];
  return left.map((l) => `${l} is still there`);
};
