// The model: created once (bootstrap), holds the model constraints and model config.
import { randomUUID } from 'node:crypto';
import type { Constraints } from '../../domain/constraints.js';
import type { Model } from '../../domain/entities.js';
import { refs } from '../../domain/plan.js';
import { planSetModelConfig, type ModelConfigChange } from '../../domain/plans/model-config.js';
import { getModel } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';
import { requireModel } from '../queries/model.js';

export const DEFAULT_SERIES = 'jammy';

/**
 * Creates the store's model if it does not exist yet; idempotent. A model made before models had
 * a uuid gets one here, once: the condition that it still has none makes a concurrent second
 * attempt retry and find the first one's.
 */
export async function ensureModel(store: Store, options: { defaultSeries?: string } = {}): Promise<Model> {
  return runOperation(store, `cannot create model "${store.model}"`, async () => {
    const existing = await getModel(store);
    if (existing?.uuid) return { changes: [], result: existing };
    if (existing) {
      const uuid = randomUUID();
      return {
        changes: [{ op: 'update', ref: refs.model(), set: { uuid }, expect: { absent: ['uuid'] } }],
        result: { ...existing, uuid },
      };
    }
    const model: Model = {
      name: store.model,
      uuid: randomUUID(),
      life: 'alive',
      constraints: {},
      defaultSeries: options.defaultSeries ?? DEFAULT_SERIES,
      constraintsVersion: 0,
    };
    return { changes: [{ op: 'create', ref: refs.model(), value: { ...model } }], result: model };
  });
}

/** set-model-constraints: replaces the model's constraints wholesale, as Juju does. */
export async function setModelConstraints(store: Store, constraints: Constraints): Promise<void> {
  await runOperation(store, 'cannot set model constraints', async () => {
    const model = await requireModel(store);
    return {
      changes: [
        {
          op: 'update',
          ref: refs.model(),
          set: { constraints, constraintsVersion: model.constraintsVersion + 1 },
          expect: { equals: { constraintsVersion: model.constraintsVersion } },
        },
      ],
      result: undefined,
    };
  });
}

/** model-config key=value / --reset: the model's settings as they are after the change. */
export async function setModelConfig(store: Store, change: ModelConfigChange): Promise<Record<string, string>> {
  return runOperation(store, 'cannot set model config', async () => planSetModelConfig(await requireModel(store), change));
}
