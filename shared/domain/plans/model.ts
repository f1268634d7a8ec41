// The model: created once (bootstrap), holds the model constraints and model config
// (model-config.ts plans the config).
import type { Constraints } from '../constraints.js';
import type { Model } from '../entities.js';
import { refs, type Plan } from '../plan.js';

export const DEFAULT_SERIES = 'jammy';

/**
 * Creates the model if it does not exist yet; idempotent. A model made before models had a uuid
 * gets `uuid` here, once: the condition that it still has none makes a concurrent second attempt
 * retry and find the first one's.
 */
export function planEnsureModel(existing: Model | undefined, name: string, uuid: string, defaultSeries = DEFAULT_SERIES): Plan<Model> {
  if (existing?.uuid) return { changes: [], result: existing };
  if (existing) {
    return {
      changes: [{ op: 'update', ref: refs.model(), set: { uuid }, expect: { absent: ['uuid'] } }],
      result: { ...existing, uuid },
    };
  }
  const model: Model = { name, uuid, life: 'alive', constraints: {}, defaultSeries, constraintsVersion: 0 };
  return { changes: [{ op: 'create', ref: refs.model(), value: { ...model } }], result: model };
}

/** set-model-constraints: replaces the model's constraints wholesale, as Juju does. */
export function planSetModelConstraints(model: Model, constraints: Constraints): Plan<void> {
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
}
