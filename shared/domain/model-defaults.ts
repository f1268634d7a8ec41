// The controller's model defaults (`juju model-defaults`): model-config values a new model takes
// when add-model does not give its own, kept once for the whole controller. Juju 3.6 shows each key
// as `{default, controller}`: the value Juju itself would use and the one the controller sets
// (https://github.com/juju/juju/blob/3.6/environs/config/modeldefaults.go, AttributeDefaultValues).
// Changing a default changes no existing model: a model keeps the config it was created with, as
// Juju's models do (and charmhub-url cannot change once a model exists).
import { MODEL_CONFIG_DEFAULTS } from './model-config.js';
import { ownValue } from './own-keys.js';

export interface ModelDefaults {
  /** The keys the controller sets; any other key has Juju's own default. */
  config: Record<string, string>;
  /** Bumped on every change: each change asserts the version it read. */
  version: number;
}

export interface ModelDefaultEntry {
  default: string;
  controller?: string;
}

/** Every key, sorted, with Juju's default and, where set, the controller's. */
export function modelDefaultsView(defaults: ModelDefaults | undefined): Record<string, ModelDefaultEntry> {
  const out: Record<string, ModelDefaultEntry> = {};
  for (const key of Object.keys(MODEL_CONFIG_DEFAULTS).sort()) {
    const controller = defaults && ownValue(defaults.config, key);
    out[key] = { default: MODEL_CONFIG_DEFAULTS[key]!, ...(controller !== undefined ? { controller } : {}) };
  }
  return out;
}

/** A new model's config: the controller's defaults, under what add-model gives. */
export const newModelConfig = (defaults: ModelDefaults | undefined, given: Record<string, string> | undefined): Record<string, string> => ({
  ...defaults?.config,
  ...given,
});
