// add-model: the model's name and the model itself, in one transaction, so that neither exists
// without the other. Creating the name asserts it is not taken; a concurrent add-model of the
// same name makes this one retry and find it.
import type { Constraints } from '../constraints.js';
import type { Model } from '../entities.js';
import { alreadyExists } from '../errors.js';
import { validateModelConfig } from '../model-config.js';
import { newModelConfig, type ModelDefaults } from '../model-defaults.js';
import { checkModelName, type ModelName } from '../models.js';
import { refs, type Plan } from '../plan.js';
import { DEFAULT_SERIES } from './model.js';

export interface NewModel {
  name: string;
  /** A fresh uuid: the model's key and its JUJU_MODEL_UUID. */
  uuid: string;
  config?: Record<string, string>;
  /**
   * The controller's model defaults when the model is made: the keys the config given lacks. No
   * rule rests on them staying so (a default changed meanwhile is a later change), so they are not asserted.
   */
  defaults?: ModelDefaults;
  constraints?: Constraints;
  defaultSeries?: string;
}

export function planAddModel(taken: ModelName | undefined, request: NewModel): Plan<Model> {
  checkModelName(request.name);
  for (const [key, value] of Object.entries(request.config ?? {})) validateModelConfig(key, value);
  if (taken) throw alreadyExists(`model "${request.name}" already exists`);
  const config = newModelConfig(request.defaults, request.config);
  const model: Model = {
    name: request.name,
    uuid: request.uuid,
    life: 'alive',
    constraints: request.constraints ?? {},
    defaultSeries: request.defaultSeries ?? DEFAULT_SERIES,
    constraintsVersion: 0,
    ...(Object.keys(config).length > 0 ? { config, configVersion: 1 } : {}),
  };
  const entry: ModelName = { name: request.name, key: request.uuid };
  return {
    changes: [
      { op: 'create', ref: refs.modelName(request.name), value: { ...entry } },
      { op: 'create', ref: refs.model(), value: { ...model } },
    ],
    result: model,
  };
}
