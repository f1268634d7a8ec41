import type { Application, Relation, RelationSettings, Unit } from '../../domain/entities.js';
import {
  planEnterScope,
  subordinateOfApplication,
  subordinateToCreate,
  type EnterScopeResult,
  type EnterScopeSnapshot,
} from '../../domain/plans/enter-scope.js';
import { refs, scopeMemberRefs } from '../../domain/plan.js';
import { InconsistentPlanError } from '../../domain/merge-changes.js';
import { getBatch, getUnit } from '../engine/reads.js';
import { NumberReservations } from '../engine/number-reservations.js';
import { relationsOf } from '../queries/relation-reads.js';
import { runOperation, type Attempt } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/**
 * The unit agent joins a relation: enters its scope and writes its initial settings (replacing
 * any left from before). A principal entering a container-scoped relation with a subordinate
 * application gets its subordinate unit in the same transaction. Entering again is harmless.
 */
export async function enterScope(
  store: Store,
  unit: string,
  relationKey: string,
  settings: Record<string, string>,
): Promise<EnterScopeResult> {
  // A new subordinate's number, kept across attempts.
  const reservations = new NumberReservations(store);
  const attempt: Attempt<EnterScopeResult> = async (store) => {
    const [u, relation] = await getBatch<[Unit, Relation]>(store, [refs.unit(unit), refs.relation(relationKey)]);
    const snapshot: EnterScopeSnapshot = { inScope: false };
    if (u) snapshot.unit = u;
    if (relation) snapshot.relation = relation;
    if (u && relation) {
      // The member's keys need the relation's layout and the settings' key its id: one more
      // request, which also reads the relation's applications, for the subordinate. Entering
      // creates the member and (unless left from before) the settings, asserting that neither
      // exists: a speculative attempt need not read them. The member is read wherever the scope's
      // growth may have left it (shared/domain/shards.ts); that it is in no other is the unit's
      // `scopes` set, which entering asserts lacks the relation.
      // The other side of a relation across models is no application of this model.
      const names = [...new Set(relation.endpoints.map((ep) => ep.application))].filter((a) => a !== relation.crossModel?.alias);
      const members = scopeMemberRefs(relation, unit);
      const settingsRef = refs.settings(relation.id, unit);
      const read = await getBatch<unknown[]>(store, [...members, settingsRef, ...names.map(refs.application)], {
        assumeAbsent: [...members, settingsRef],
      });
      const current = read[members.length] as RelationSettings | undefined;
      const applications = read.slice(members.length + 1) as (Application | undefined)[];
      snapshot.inScope = read.slice(0, members.length).some((m) => m !== undefined);
      if (current) snapshot.settingsVersion = current.version;
      const existing = applications.filter((a): a is Application => a !== undefined);
      // An Alive or Dying relation's applications exist (removing one removes its relations first):
      // one missing can only be a stale cache, and would silently skip the subordinate.
      if (existing.length !== names.length) throw new InconsistentPlanError(`an application of relation "${relationKey}" is missing`);
      const subordinate = await readSubordinate(store, u, relation, existing);
      if (subordinate) {
        return reservations.plan((numbers) =>
          planEnterScope({ ...snapshot, subordinate: { ...subordinate, numbers } }, settings, store.now().toISOString()),
        );
      }
    }
    return planEnterScope(snapshot, settings, store.now().toISOString());
  };
  return runOperation(store, `cannot enter scope of relation "${relationKey}" for unit "${unit}"`, attempt, { speculate: true });
}

async function readSubordinate(
  store: Store,
  unit: Unit,
  relation: Relation,
  applications: Application[],
): Promise<Omit<NonNullable<EnterScopeSnapshot['subordinate']>, 'numbers'> | undefined> {
  const name = subordinateToCreate(unit, relation, applications);
  const application = applications.find((a) => a.name === name);
  if (!application) return undefined;
  const existingName = subordinateOfApplication(unit, application.name);
  const [relations, existing] = await Promise.all([
    // Fresh: which of its required relations are met is asserted only by the set's size.
    relationsOf(store, [application], { fresh: true }),
    existingName ? getUnit(store, existingName) : Promise.resolve(undefined),
  ]);
  return { application, relations, ...(existing ? { existing } : {}) };
}
