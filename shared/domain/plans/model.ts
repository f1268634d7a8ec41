// The model: created once (bootstrap, or add-model: add-model.ts), holds the model constraints
// and model config (model-config.ts plans the config).
import { newModelConfig, type ModelDefaults } from '../model-defaults.js';
import type { Constraints } from '../constraints.js';
import type { Model } from '../entities.js';
import type { ModelName } from '../models.js';
import { refs, type Change, type Plan } from '../plan.js';

export const DEFAULT_SERIES = 'jammy';

/**
 * Bootstrap's model (the key is its name, `default`): creates it and its name if they do not
 * exist yet; idempotent. A model made before models had a uuid gets `uuid` here, once, and one
 * made before there were many models gets its name's item: the conditions that neither exists
 * yet make a concurrent second attempt retry and find the first one's.
 */
export function planEnsureModel(
  existing: Model | undefined,
  entry: ModelName | undefined,
  key: string,
  uuid: string,
  defaultSeries = DEFAULT_SERIES,
  defaults?: ModelDefaults,
): Plan<Model> {
  const changes: Change[] = entry ? [] : [{ op: 'create', ref: refs.modelName(key), value: { name: key, key } satisfies ModelName }];
  if (existing?.uuid) return { changes, result: existing };
  if (existing) {
    changes.push({ op: 'update', ref: refs.model(), set: { uuid }, expect: { absent: ['uuid'] } });
    return { changes, result: { ...existing, uuid } };
  }
  // A new model takes the controller's defaults, as add-model's do (bootstrap --model-default).
  const config = newModelConfig(defaults, undefined);
  const model: Model = {
    name: key,
    uuid,
    life: 'alive',
    constraints: {},
    defaultSeries,
    constraintsVersion: 0,
    ...(Object.keys(config).length > 0 ? { config, configVersion: 1 } : {}),
  };
  changes.push({ op: 'create', ref: refs.model(), value: { ...model } });
  return { changes, result: model };
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
