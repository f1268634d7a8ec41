import type { Application, Relation } from '../../domain/entities.js';
import { refs } from '../../domain/plan.js';
import { planDestroyApplication, type DestroyApplicationResult } from '../../domain/plans/destroy-application.js';
import { getApplication, getMany } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';
import { crossModelFactsOf } from '../queries/cross-model-reads.js';

/**
 * remove-application: removes the application at once when nothing would still reference it,
 * otherwise sets it Dying (its units are destroyed by the 'units' cleanup). Relations without
 * units in scope go with it; those with units in scope become Dying.
 */
export async function destroyApplication(
  store: Store,
  name: string,
  options: { destroyStorage?: boolean } = {},
): Promise<Exclude<DestroyApplicationResult, 'shedding-relations'>> {
  const intent = { name, ...(options.destroyStorage ? { destroyStorage: true } : {}) };
  for (;;) {
    const result = await runOperation(store, `cannot destroy application "${name}"`, async (store) => {
      const application = await getApplication(store, name);
      if (!application) return planDestroyApplication({ relations: [], counterparts: [] }, intent, store.now().toISOString());
      const relations = await getMany<Relation>(store, application.relations.map(refs.relation));
      const others = [...new Set(relations.flatMap((r) => r.endpoints.map((ep) => ep.application)))].filter((a) => a !== name);
      const [counterparts, crossModel] = await Promise.all([
        getMany<Application>(store, others.map(refs.application)),
        crossModelFactsOf(
          store,
          relations.filter((r) => r.life === 'alive'),
        ),
      ]);
      return planDestroyApplication({ application, relations, counterparts, crossModel }, intent, store.now().toISOString());
    });
    // Each batch leaves fewer Alive relations, so this ends.
    if (result !== 'shedding-relations') return result;
  }
}
