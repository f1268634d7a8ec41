import type { Application } from '../../domain/entities.js';
import { planLeaveScope, type LeaveScopeResult } from '../../domain/plans/leave-scope.js';
import { refs, scopeMemberRefs } from '../../domain/plan.js';
import { getEach, getRelation, getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';
import { crossModelFacts } from '../queries/cross-model-reads.js';

/**
 * The unit agent leaves a relation's scope. The last unit to leave a Dying relation removes it
 * (and, with it, a Dying counterpart application that nothing else holds). Leaving again is harmless.
 */
export async function leaveScope(store: Store, unit: string, relationKey: string): Promise<LeaveScopeResult> {
  return runOperation(store, `cannot leave scope of relation "${relationKey}" for unit "${unit}"`, async (store) => {
    const [u, relation] = await Promise.all([getUnit(store, unit), getRelation(store, relationKey)]);
    // Gone: it is removed only with an empty scope, so there is nothing to leave.
    if (!relation) return planLeaveScope({ inScope: false, applications: [] }, unit, store.now().toISOString());
    // The member's keys need the relation's layout (it may be in any shard the scope has grown
    // through, shared/domain/shards.ts): read with the relation's applications.
    // The other side of a relation across models is no application of this model.
    const names = [...new Set(relation.endpoints.map((ep) => ep.application))].filter((a) => a !== relation.crossModel?.alias);
    const members = scopeMemberRefs(relation, unit);
    const read = await getEach<unknown>(store, [...members, ...names.map(refs.application)]);
    const at = read.slice(0, members.length).findIndex((m) => m !== undefined);
    const applications = read.slice(members.length);
    const removing = relation.life !== 'alive' && relation.unitCount <= 1;
    const crossModel = removing ? (await crossModelFacts(store, relation))?.references : undefined;
    return planLeaveScope(
      {
        ...(crossModel ? { crossModel } : {}),
        inScope: at >= 0,
        ...(at >= 0 ? { member: members[at]! } : {}),
        applications: applications.filter((a): a is Application => a !== undefined),
        ...(u ? { unit: u } : {}),
        relation,
      },
      unit,
      store.now().toISOString(),
    );
  });
}
