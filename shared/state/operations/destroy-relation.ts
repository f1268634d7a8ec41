import type { Application, Relation } from '../../domain/entities.js';
import { planDestroyRelation, type DestroyRelationResult, type RelationTarget } from '../../domain/plans/destroy-relation.js';
import { refs } from '../../domain/plan.js';
import { parseEndpointArg } from '../../domain/relation-endpoints.js';
import { getMany } from '../engine/reads.js';
import type { RemoteApplication } from '../../domain/cross-model.js';
import { crossModelFactsOf } from '../queries/cross-model-reads.js';
import { getRelationById, relationsOf } from '../queries/relation-reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/** remove-relation, by endpoints (`wordpress mysql`, `wordpress:db mysql:server`) or by relation id. */
export async function destroyRelation(store: Store, target: RelationTarget): Promise<DestroyRelationResult> {
  const description = typeof target === 'number' ? `cannot destroy relation ${target}` : `cannot destroy relation "${target.join(' ')}"`;
  return runOperation(store, description, async (store) => {
    const candidates = await readCandidates(store, target);
    const names = [...new Set(candidates.flatMap((r) => r.endpoints.map((ep) => ep.application)))];
    const [applications, crossModel] = await Promise.all([
      getMany<Application>(store, names.map(refs.application)),
      crossModelFactsOf(store, candidates),
    ]);
    return planDestroyRelation({ candidates, applications, crossModel }, target, store.now().toISOString());
  });
}

async function readCandidates(store: Store, target: RelationTarget): Promise<Relation[]> {
  if (typeof target === 'number') {
    const relation = await getRelationById(store, target);
    return relation ? [relation] : [];
  }
  // Every relation the arguments can name is in the relation set of each application they name:
  // the first that is one of this model's, or else a remote application (SAAS). The offering
  // model's name for a consumer (`remote-<hex>`) is neither, so its relations are the other's.
  const names = target.map((arg) => parseEndpointArg(arg).application);
  const applications = await getMany<Application>(store, names.map(refs.application));
  const first = names.map((n) => applications.find((a) => a.name === n)).find((a) => a !== undefined);
  if (first) return relationsOf(store, [first]);
  const [saas] = await getMany<RemoteApplication>(store, names.map(refs.remoteApplication));
  return saas ? getMany<Relation>(store, saas.relations.map(refs.relation)) : [];
}
