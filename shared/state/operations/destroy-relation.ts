import type { Application, Relation } from '../../domain/entities.js';
import { planDestroyRelation, type DestroyRelationResult, type RelationTarget } from '../../domain/plans/destroy-relation.js';
import { refs } from '../../domain/plan.js';
import { parseEndpointArg } from '../../domain/relation-endpoints.js';
import { getMany } from '../engine/reads.js';
import { getRelationById, relationsOf } from '../queries/relation-reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/** remove-relation, by endpoints (`wordpress mysql`, `wordpress:db mysql:server`) or by relation id. */
export async function destroyRelation(store: Store, target: RelationTarget): Promise<DestroyRelationResult> {
  const description = typeof target === 'number' ? `cannot destroy relation ${target}` : `cannot destroy relation "${target.join(' ')}"`;
  return runOperation(store, description, async (store) => {
    const candidates = await readCandidates(store, target);
    const names = [...new Set(candidates.flatMap((r) => r.endpoints.map((ep) => ep.application)))];
    const applications = await getMany<Application>(store, names.map(refs.application));
    return planDestroyRelation({ candidates, applications }, target, store.now().toISOString());
  });
}

async function readCandidates(store: Store, target: RelationTarget): Promise<Relation[]> {
  if (typeof target === 'number') {
    const relation = await getRelationById(store, target);
    return relation ? [relation] : [];
  }
  // Every relation the arguments can name is in the first named application's relation set.
  const [first] = target.map(parseEndpointArg);
  if (!first) return [];
  return relationsOf(store, await getMany<Application>(store, [refs.application(first.application)]));
}
