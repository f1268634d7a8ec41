import { describe, expect, it } from 'vitest';
import type { Model } from '#shared/domain/entities.js';
import { planAddModel } from '#shared/domain/plans/add-model.js';
import { planEnsureModel } from '#shared/domain/plans/model.js';
import { collectionOf, collections, keyOf, refFromKey } from '#shared/state/engine/keys.js';

const UUID = '6f1c2d3e-0000-4000-8000-000000000001';

describe('planAddModel', () => {
  it("creates the model's name and the model in one plan, the name saying where the model's items are", () => {
    const plan = planAddModel(undefined, { name: 'staging', uuid: UUID, config: { 'update-status-hook-interval': '10m' } });
    expect(plan.changes).toEqual([
      { op: 'create', ref: { kind: 'modelName', name: 'staging' }, value: { name: 'staging', key: UUID } },
      {
        op: 'create',
        ref: { kind: 'model' },
        value: {
          name: 'staging',
          uuid: UUID,
          life: 'alive',
          constraints: {},
          defaultSeries: 'jammy',
          constraintsVersion: 0,
          config: { 'update-status-hook-interval': '10m' },
          configVersion: 1,
        },
      },
    ]);
  });

  it("refuses a taken name, a name Juju would refuse and bad config, in Juju's words", () => {
    expect(() => planAddModel({ name: 'staging', key: 'other' }, { name: 'staging', uuid: UUID })).toThrow(
      'model "staging" already exists',
    );
    for (const name of ['Staging', '-x', 'a_b', 'a/b', ''])
      expect(() => planAddModel(undefined, { name, uuid: UUID })).toThrow(
        `"${name}" is not a valid name: model names may only contain lowercase letters, digits and hyphens`,
      );
    expect(() => planAddModel(undefined, { name: 'x', uuid: UUID, config: { colour: 'red' } })).toThrow(
      'unknown model config key "colour"',
    );
  });
});

describe('planEnsureModel', () => {
  const existing: Model = { name: 'default', uuid: UUID, life: 'alive', constraints: {}, defaultSeries: 'jammy', constraintsVersion: 0 };

  it("gives bootstrap's model its name's item, keyed by its name, when it has none (a controller made before models had names)", () => {
    expect(planEnsureModel(existing, undefined, 'default', 'unused').changes).toEqual([
      { op: 'create', ref: { kind: 'modelName', name: 'default' }, value: { name: 'default', key: 'default' } },
    ]);
    expect(planEnsureModel(existing, { name: 'default', key: 'default' }, 'default', 'unused').changes).toEqual([]);
  });

  it('creates both on a new controller', () => {
    expect(planEnsureModel(undefined, undefined, 'default', UUID).changes.map((c) => [c.op, c.ref.kind])).toEqual([
      ['create', 'modelName'],
      ['create', 'model'],
    ]);
  });
});

describe("model names' keys", () => {
  it("are the controller's: the same from every model's store, and listed in one collection", () => {
    const ref = { kind: 'modelName', name: 'staging' } as const;
    expect(keyOf('default', ref)).toEqual(keyOf(UUID, ref));
    expect(collectionOf(UUID, ref)?.pk).toBe(collections.modelNames());
    expect(refFromKey('default', keyOf(UUID, ref))).toEqual(ref);
  });

  it("never read one model's key as another's item", () => {
    expect(refFromKey('default', keyOf(UUID, { kind: 'application', name: 'mysql' }))).toBeUndefined();
    expect(refFromKey(UUID, keyOf(UUID, { kind: 'application', name: 'mysql' }))).toEqual({ kind: 'application', name: 'mysql' });
  });
});
