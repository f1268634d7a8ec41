import { describe, expect, it } from 'vitest';
import { planSetModelDefaults } from '#shared/domain/plans/model-defaults.js';
import { planAddModel } from '#shared/domain/plans/add-model.js';
import { planEnsureModel } from '#shared/domain/plans/model.js';
import { keyOf, modelOfKey } from '#shared/state/engine/keys.js';

const MIRROR = 'http://10.0.0.5:8080';

describe('planSetModelDefaults', () => {
  it('creates the controller item asserting there was none, then updates it asserting the version read', () => {
    const first = planSetModelDefaults(undefined, { set: { 'charmhub-url': MIRROR } });
    expect(first.changes).toEqual([
      { op: 'create', ref: { kind: 'modelDefaults' }, value: { config: { 'charmhub-url': MIRROR }, version: 1 } },
    ]);
    const second = planSetModelDefaults(first.result, { set: { 'logging-config': '<root>=DEBUG' }, reset: ['charmhub-url'] });
    expect(second.changes).toEqual([
      {
        op: 'update',
        ref: { kind: 'modelDefaults' },
        set: { config: { 'logging-config': '<root>=DEBUG' }, version: 2 },
        expect: { equals: { version: 1 } },
      },
    ]);
    // What is already so changes nothing.
    expect(planSetModelDefaults(second.result, { set: { 'logging-config': '<root>=DEBUG' } }).changes).toEqual([]);
    expect(planSetModelDefaults(undefined, { reset: ['charmhub-url'] }).changes).toEqual([]);
  });

  it("refuses what model-config would, in Juju's words; charmhub-url may change here (only models keep theirs)", () => {
    expect(() => planSetModelDefaults(undefined, { set: { colour: 'red' } })).toThrow('unknown model config key "colour"');
    expect(() => planSetModelDefaults(undefined, { reset: ['colour'] })).toThrow('unknown model config key "colour"');
    expect(() => planSetModelDefaults(undefined, { set: { 'charmhub-url': 'ftp://x' } })).toThrow('charmhub-url: invalid URL "ftp://x"');
    expect(() => planSetModelDefaults(undefined, { set: { 'logging-config': 'x=LOUD' }, reset: ['logging-config'] })).toThrow(
      'cannot set and reset key "logging-config" simultaneously',
    );
    const set = planSetModelDefaults({ config: { 'charmhub-url': MIRROR }, version: 3 }, { set: { 'charmhub-url': 'http://other:1' } });
    expect(set.result?.config).toEqual({ 'charmhub-url': 'http://other:1' });
  });

  it("is the controller's item, outside every model", () => {
    expect(modelOfKey(keyOf('u-1', { kind: 'modelDefaults' }).pk)).toBeUndefined();
    expect(keyOf('u-1', { kind: 'modelDefaults' })).toEqual(keyOf('u-2', { kind: 'modelDefaults' }));
  });

  it('gives a new model the defaults, under the config add-model gives', () => {
    const plan = planAddModel(undefined, {
      name: 'm',
      uuid: 'u-1',
      config: { 'logging-config': '<root>=DEBUG' },
      defaults: { config: { 'charmhub-url': MIRROR, 'logging-config': '<root>=INFO' }, version: 4 },
    });
    expect(plan.result.config).toEqual({ 'charmhub-url': MIRROR, 'logging-config': '<root>=DEBUG' });
    expect(plan.result.configVersion).toBe(1);
  });

  it("gives bootstrap's model the defaults too (bootstrap --model-default), and leaves one that exists as it is", () => {
    const defaults = { config: { 'charmhub-url': MIRROR }, version: 1 };
    const made = planEnsureModel(undefined, undefined, 'default', 'u-1', 'jammy', defaults);
    expect(made.result.config).toEqual({ 'charmhub-url': MIRROR });
    expect(planEnsureModel(made.result, { name: 'default', key: 'default' }, 'default', 'u-2', 'jammy', defaults).changes).toEqual([]);
    expect(planEnsureModel(undefined, undefined, 'default', 'u-1').result.config).toBeUndefined();
  });
});
