import type { Application, Relation, ScopeMember, Unit } from '../domain/entities.js';
import {
  planEnterScope,
  subordinateOfApplication,
  subordinateToCreate,
  type EnterScopeResult,
  type EnterScopeSnapshot,
} from '../domain/plans/enter-scope.js';
import { refs } from '../domain/plan.js';
import { sequenceNames } from '../domain/sequences.js';
import { getItem, getMany, getRelation, getSequence, getSettings, getUnit } from './reads.js';
import { relationsOf } from './relation-reads.js';
import { runOperation } from './run-operation.js';
import type { Store } from './store.js';

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
  return runOperation(store, `cannot enter scope of relation "${relationKey}" for unit "${unit}"`, async () => {
    const [u, relation, member] = await Promise.all([
      getUnit(store, unit),
      getRelation(store, relationKey),
      getItem<ScopeMember>(store, refs.scope(relationKey, unit)),
    ]);
    const snapshot: EnterScopeSnapshot = { inScope: member !== undefined };
    if (u) snapshot.unit = u;
    if (relation) {
      snapshot.relation = relation;
      const current = u ? await getSettings(store, relation.id, unit) : undefined;
      if (current) snapshot.settingsVersion = current.version;
    }
    if (u && relation) {
      const subordinate = await readSubordinate(store, u, relation);
      if (subordinate) snapshot.subordinate = subordinate;
    }
    return planEnterScope(snapshot, settings, store.now().toISOString());
  });
}

async function readSubordinate(store: Store, unit: Unit, relation: Relation): Promise<EnterScopeSnapshot['subordinate']> {
  const names = relation.endpoints.map((ep) => ep.application);
  const applications = await getMany<Application>(store, names.map(refs.application));
  const name = subordinateToCreate(unit, relation, applications);
  const application = applications.find((a) => a.name === name);
  if (!application) return undefined;
  const existingName = subordinateOfApplication(unit, application.name);
  const [relations, unitSequence, existing] = await Promise.all([
    relationsOf(store, [application]),
    getSequence(store, sequenceNames.unitsOf(application.name)),
    existingName ? getUnit(store, existingName) : Promise.resolve(undefined),
  ]);
  return { application, relations, unitSequence, ...(existing ? { existing } : {}) };
}
