import { describe, expect, it } from 'vitest';
import { modelBlockedBy, modelLeftBy } from '#shared/domain/blocked-by.js';
import type { Cleanup, Model } from '#shared/domain/entities.js';
import { DroverError } from '#shared/domain/errors.js';
import { planDeploy } from '#shared/domain/plans/deploy.js';
import { modelCleanupId, planDestroyModel } from '#shared/domain/plans/destroy-model.js';
import { planAddMachines } from '#shared/domain/plans/new-machine.js';
import { planNewUnits } from '#shared/domain/plans/new-units.js';
import { planForgetUnitNumbers, planRemoveModel, type ModelContents } from '#shared/domain/plans/remove-model.js';
import { sequentialNumbers } from '#shared/domain/sequences.js';
import { charms } from '../../support/charms.js';
import { app, machine, NOW, unit } from './destruction-fixtures.js';

const model = (fields: Partial<Model> = {}): Model => ({
  name: 'staging',
  uuid: 'u-1',
  life: 'alive',
  constraints: {},
  defaultSeries: 'jammy',
  constraintsVersion: 0,
  ...fields,
});
const cleanup = (fields: Partial<Cleanup> = {}): Cleanup => ({
  id: 'model:staging',
  kind: 'model',
  target: 'staging',
  createdAt: NOW,
  ...fields,
});

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof DroverError ? [e.code, e.message] : e;
  }
  return undefined;
};

describe('planDestroyModel', () => {
  it('sets an Alive model Dying and schedules its "model" cleanup in the same transaction', () => {
    expect(planDestroyModel({ model: model() }, {}, NOW)).toEqual({
      changes: [
        { op: 'update', ref: { kind: 'model' }, set: { life: 'dying' }, expect: { life: 'alive' } },
        {
          op: 'create',
          ref: { kind: 'cleanup', id: 'model:staging' },
          value: { id: 'model:staging', kind: 'model', target: 'staging', createdAt: NOW },
        },
      ],
      result: 'dying',
    });
    expect(modelCleanupId(model())).toBe('model:staging');
  });

  it('--force on an Alive model records the force with the Dying', () => {
    const plan = planDestroyModel({ model: model() }, { force: true }, NOW);
    expect(plan.changes[0]).toEqual({
      op: 'update',
      ref: { kind: 'model' },
      set: { life: 'dying', force: true },
      expect: { life: 'alive' },
    });
    expect(plan.result).toBe('dying');
  });

  it('destroying a Dying model again changes nothing, forced or not once forced', () => {
    expect(planDestroyModel({ model: model({ life: 'dying' }), cleanup: cleanup() }, {}, NOW)).toEqual({
      changes: [],
      result: 'already-dying',
    });
    expect(planDestroyModel({ model: model({ life: 'dying', force: true }), cleanup: cleanup() }, { force: true }, NOW)).toEqual({
      changes: [],
      result: 'already-dying',
    });
  });

  it('--force on a Dying model turns forcing on and wakes a waiting cleanup', () => {
    expect(planDestroyModel({ model: model({ life: 'dying' }), cleanup: cleanup({ notBefore: NOW }) }, { force: true }, NOW)).toEqual({
      changes: [
        { op: 'update', ref: { kind: 'model' }, set: { force: true }, expect: { life: 'dying', absent: ['force'] } },
        { op: 'update', ref: { kind: 'cleanup', id: 'model:staging' }, unset: ['notBefore'] },
      ],
      result: 'forcing',
    });
  });

  it('a Dying model whose cleanup document is gone gets it again', () => {
    const plan = planDestroyModel({ model: model({ life: 'dying' }) }, {}, NOW);
    expect(plan.changes).toEqual([
      {
        op: 'create',
        ref: { kind: 'cleanup', id: 'model:staging' },
        value: { id: 'model:staging', kind: 'model', target: 'staging', createdAt: NOW },
      },
    ]);
  });
});

describe('a Dying model refuses anything new', () => {
  const dying = model({ life: 'dying' });

  it('deploy: cannot add application "x": model "<name>" is dying', () => {
    const snapshot = { model: dying, numbers: sequentialNumbers() };
    expect(refusal(() => planDeploy(snapshot, { charm: charms.mysql, numUnits: 1 }, NOW))).toEqual([
      'not-alive',
      'cannot add application "mysql": model "staging" is dying',
    ]);
  });

  it('add-machine: cannot add a new machine: model "<name>" is dying', () => {
    expect(refusal(() => planAddMachines(dying, sequentialNumbers(), 1, {}, NOW))).toEqual([
      'not-alive',
      'cannot add a new machine: model "staging" is dying',
    ]);
  });

  it('add-unit onto a new machine: the machine is refused', () => {
    const input = {
      model: dying,
      application: app('mysql'),
      numbers: sequentialNumbers({ 'unit#mysql': 1, machine: 1 }),
      count: 1,
      placements: [],
      pending: [],
      now: NOW,
    };
    expect(refusal(() => planNewUnits(input))).toEqual(['not-alive', 'cannot add a new machine: model "staging" is dying']);
  });

  it('add-unit onto an existing machine: the unit is refused', () => {
    const input = {
      model: dying,
      application: app('mysql'),
      numbers: sequentialNumbers({ 'unit#mysql': 1, machine: 1 }),
      count: 1,
      placements: [machine('0')],
      pending: [],
      now: NOW,
    };
    expect(refusal(() => planNewUnits(input))).toEqual(['not-alive', 'cannot add unit to application "mysql": model "staging" is dying']);
  });

  it('an Alive model still takes them, each transaction asserting it Alive', () => {
    const plan = planAddMachines(model(), sequentialNumbers(), 1, {}, NOW);
    expect(plan.changes).toContainEqual({
      op: 'check',
      ref: { kind: 'model' },
      expect: { life: 'alive', equals: { constraintsVersion: 0 } },
    });
  });
});

describe('planRemoveModel', () => {
  const empty: ModelContents = { applications: [], machines: [], relations: [], cleanups: [] };
  const snapshot = {
    model: model({ life: 'dying' }),
    name: { name: 'staging', key: 'u-1' },
    key: 'u-1',
    contents: empty,
    sequences: ['machine', 'relation'],
    cleanup: 'model:staging',
  };

  it('removes the model, its name, its sequences and its cleanup in one transaction, asserting it Dying', () => {
    expect(planRemoveModel(snapshot)).toEqual({
      changes: [
        { op: 'remove', ref: { kind: 'model' }, expect: { life: 'dying' } },
        { op: 'remove', ref: { kind: 'modelName', name: 'staging' }, expect: { equals: { key: 'u-1' } } },
        { op: 'remove', ref: { kind: 'sequence', name: 'machine' } },
        { op: 'remove', ref: { kind: 'sequence', name: 'relation' } },
        { op: 'remove', ref: { kind: 'cleanup', id: 'model:staging' } },
      ],
      result: 'removed',
    });
  });

  it.each([
    ['an application', { applications: ['mysql'] }],
    ['a machine', { machines: ['0'] }],
    ['a relation', { relations: ['mysql:cluster'] }],
    ['another cleanup', { cleanups: ['settings:3'] }],
  ])('waits while %s is left', (_what, left) => {
    expect(planRemoveModel({ ...snapshot, contents: { ...empty, ...left } })).toEqual({ changes: [], result: 'not-empty' });
  });

  it('leaves a name that says another model alone, and finds a removed model gone', () => {
    expect(planRemoveModel({ ...snapshot, name: { name: 'staging', key: 'u-2' } }).changes.map((c) => c.ref.kind)).toEqual([
      'model',
      'sequence',
      'sequence',
      'cleanup',
    ]);
    expect(planRemoveModel({ ...snapshot, model: undefined })).toEqual({ changes: [], result: 'gone' });
  });

  it('never removes an Alive model', () => {
    expect(planRemoveModel({ ...snapshot, model: model() })).toEqual({ changes: [], result: 'not-empty' });
  });
});

describe('planForgetUnitNumbers', () => {
  it('takes the unit numbers of a destroyed application of a Dying model away, asserting both lives', () => {
    expect(planForgetUnitNumbers(model({ life: 'dying' }), app('mysql', { life: 'dying' }), 'unit#mysql')).toEqual({
      changes: [
        { op: 'check', ref: { kind: 'model' }, expect: { life: 'dying' } },
        { op: 'check', ref: { kind: 'application', name: 'mysql' }, expect: { life: 'dying' } },
        { op: 'remove', ref: { kind: 'sequence', name: 'unit#mysql' } },
      ],
      result: true,
    });
    expect(planForgetUnitNumbers(model({ life: 'dying' }), undefined, 'unit#mysql').changes.map((c) => c.ref.kind)).toEqual([
      'model',
      'sequence',
    ]);
  });

  it('keeps them while the model or the application is Alive, and has nothing to do without them', () => {
    expect(planForgetUnitNumbers(model(), app('mysql', { life: 'dying' }), 'unit#mysql')).toEqual({ changes: [], result: false });
    expect(planForgetUnitNumbers(model({ life: 'dying' }), app('mysql'), 'unit#mysql')).toEqual({ changes: [], result: false });
    expect(planForgetUnitNumbers(model({ life: 'dying' }), undefined, undefined)).toEqual({ changes: [], result: false });
  });
});

describe('modelBlockedBy', () => {
  it('names what is left, and a unit in error with what to run', () => {
    const error = unit('mysql/0', { life: 'dying', agentStatus: { current: 'error', message: 'hook failed: "stop"', since: NOW } });
    expect(
      modelBlockedBy(model({ life: 'dying' }), { applications: [app('mysql')], machines: [machine('0'), machine('1')], units: [error] }),
    ).toEqual([
      '1 application: mysql',
      '2 machines: 0, 1',
      'unit mysql/0: its agent is in error (hook failed: "stop"): run "drover resolved mysql/0", or "drover destroy-model staging --force"',
    ]);
  });

  it('names a few units in error and counts the rest', () => {
    const units = Array.from({ length: 7 }, (_, i) => unit(`mysql/${i}`, { agentStatus: { current: 'error', since: NOW } }));
    const reasons = modelBlockedBy(model({ life: 'dying' }), { applications: [], machines: [], units });
    expect(reasons).toHaveLength(6);
    expect(reasons[5]).toBe('2 more units in error');
  });

  it('a forced model is not held by units in error; an Alive one by nothing', () => {
    const error = unit('mysql/0', { agentStatus: { current: 'error', since: NOW } });
    expect(modelBlockedBy(model({ life: 'dying', force: true }), { applications: [], machines: [], units: [error] })).toEqual([
      'its cleanup, to remove the model',
    ]);
    expect(modelBlockedBy(model(), { applications: [app('mysql')], machines: [], units: [] })).toEqual([]);
  });
});

describe('modelLeftBy (drover stuck)', () => {
  it('names the first few of each kind left, saying when there may be more', () => {
    const left = { applications: ['a', 'b'], machines: ['0', '1', '2'], relations: [], cleanups: ['units:a:t'] };
    expect(modelLeftBy(model({ life: 'dying' }), left, 3)).toEqual([
      'applications: a, b',
      'machines: 0, 1, 2 and maybe more',
      'cleanups: units:a:t',
    ]);
    expect(modelLeftBy(model({ life: 'dying' }), { applications: [], machines: [], relations: [], cleanups: [] }, 3)).toEqual([
      'its cleanup, to remove the model',
    ]);
  });
});
