// model-config key=value... / --reset key...: checks every value first (Juju's words), then
// replaces the model's explicit settings in one write that asserts the version it read, so two
// concurrent changes cannot lose one another.
import type { Model } from '../entities.js';
import { invalidArgument } from '../errors.js';
import { checkImmutableModelConfig, checkModelConfigKey, validateModelConfig } from '../model-config.js';
import { sameEntries } from '../own-keys.js';
import { done, refs, type Change, type Plan } from '../plan.js';

export interface ModelConfigChange {
  set?: Record<string, string>;
  reset?: string[];
}

/**
 * `before` with the change applied, every key and value checked first (Juju's words): the one
 * rule of a model's config and of the controller's model defaults.
 */
export function applyModelConfigChange(before: Record<string, string>, change: ModelConfigChange): Record<string, string> {
  const set = change.set ?? {};
  const reset = change.reset ?? [];
  for (const key of reset) {
    if (Object.hasOwn(set, key)) throw invalidArgument(`cannot set and reset key "${key}" simultaneously`);
    checkModelConfigKey(key);
  }
  for (const [key, value] of Object.entries(set)) validateModelConfig(key, value);
  const next: Record<string, string> = { ...before, ...set };
  for (const key of reset) delete next[key];
  return next;
}

export function planSetModelConfig(model: Model, change: ModelConfigChange): Plan<Record<string, string>> {
  const before = model.config ?? {};
  const next = applyModelConfigChange(before, change);
  checkImmutableModelConfig(before, change.set ?? {}, change.reset ?? []);
  if (sameEntries(next, before)) return done(before);
  return { changes: [writeModelConfig(model, next)], result: next };
}

/**
 * The model's whole config written in one update that asserts the config version it was read at,
 * so that two concurrent changes (model-config, add-ssh-key...) cannot lose one another.
 */
export function writeModelConfig(model: Model, next: Record<string, string>): Change {
  const version = model.configVersion;
  return {
    op: 'update',
    ref: refs.model(),
    set: { config: next, configVersion: (version ?? 0) + 1 },
    expect: version === undefined ? { absent: ['configVersion'] } : { equals: { configVersion: version } },
  };
}
