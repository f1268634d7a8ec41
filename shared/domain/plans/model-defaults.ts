// model-defaults key=value... / --reset key...: checks every value as model-config does (Juju's
// words), then writes the controller's defaults in one write that asserts the version it read
// (or that there were none), so two concurrent changes cannot lose one another.
import type { ModelDefaults } from '../model-defaults.js';
import { sameEntries } from '../own-keys.js';
import { done, refs, type Plan } from '../plan.js';
import { applyModelConfigChange, type ModelConfigChange } from './model-config.js';

export function planSetModelDefaults(current: ModelDefaults | undefined, change: ModelConfigChange): Plan<ModelDefaults | undefined> {
  const before = current?.config ?? {};
  const config = applyModelConfigChange(before, change);
  if (sameEntries(config, before)) return done(current);
  if (!current) {
    const created: ModelDefaults = { config, version: 1 };
    return { changes: [{ op: 'create', ref: refs.modelDefaults(), value: { ...created } }], result: created };
  }
  const next: ModelDefaults = { config, version: current.version + 1 };
  return {
    changes: [{ op: 'update', ref: refs.modelDefaults(), set: { ...next }, expect: { equals: { version: current.version } } }],
    result: next,
  };
}
