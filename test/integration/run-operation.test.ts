import { beforeEach, describe, expect, it } from 'vitest';
import { isDroverError, errorMessage } from '#shared/domain/errors.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication, getMachine, getSequence } from '#shared/state/engine/reads.js';
import { MAX_ATTEMPTS } from '#shared/state/engine/run-operation.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { injectTransactionConflicts } from '../support/faults.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
});

describe('transaction cancellation', () => {
  it('a conflict is re-read, re-planned and retried until it commits', async () => {
    const faults = injectTransactionConflicts(store, 3);
    const result = await deploy(store, { charm: charms.mysql });
    expect(faults.cancelled).toBe(3);
    expect(result.units).toEqual(['mysql/0']);
    expect((await getApplication(store, 'mysql'))?.unitCount).toBe(1);
  });

  it('gives up after bounded retries with "state changing too quickly; try again soon" and changes nothing', async () => {
    injectTransactionConflicts(store, MAX_ATTEMPTS);
    const error = await deploy(store, { charm: charms.mysql }).catch((e: unknown) => e);
    expect(isDroverError(error, 'contention')).toBe(true);
    expect(errorMessage(error)).toBe('cannot add application "mysql": state changing too quickly; try again soon');
    expect(await getApplication(store, 'mysql')).toBeUndefined();
  });

  it('an operation someone else already did succeeds (already done → success)', async () => {
    // Both read "no model" and plan its creation; one commits, the other's create is cancelled,
    // and its re-plan finds the model there: nothing left to do.
    const empty = await freshStore();
    const [a, b] = await Promise.all([ensureModel(empty, { defaultSeries: 'noble' }), ensureModel(empty, { defaultSeries: 'noble' })]);
    expect(a).toEqual(b);
    expect(a.defaultSeries).toBe('noble');
  });

  it('two operations taking numbers from the same sequence at once both commit, with distinct numbers', async () => {
    // Two add-machines at once: each reserves its own id before its transaction
    // (shared/state/engine/number-reservations.ts).
    const [a, b] = await Promise.all([addMachines(store), addMachines(store)]);
    expect([...a!, ...b!].sort()).toEqual(['0', '1']);
    expect(await getSequence(store, 'machine')).toBe(2);
    expect(await getMachine(store, '1')).toMatchObject({ life: 'alive' });
  });

  it('an operation no longer valid gets the typed error, not a retry', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    const results = await Promise.allSettled([
      deploy(store, { charm: charms.mysql, name: 'db' }),
      deploy(store, { charm: charms.mysql, name: 'db' }),
    ]);
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(String((rejected[0] as PromiseRejectedResult).reason.message)).toBe('cannot add application "db": application already exists');
  });
});
