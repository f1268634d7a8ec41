// One run at a time of each scheduled job, by a lease in the table (shared/state/operations/run-lease.ts,
// functions/single-run.ts) instead of reserved concurrency, which accounts with a low concurrency
// quota refuse at deploy time.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { singleRun, type LeaseContext } from '../../functions/single-run.js';
import { recordMatches, STREAM_CONSUMERS } from '../../functions/stream-consumers.js';
import { runLeaseKey } from '#shared/state/engine/keys.js';
import type { Store } from '#shared/state/engine/store.js';
import { SKIPPED, releaseRunLease, takeRunLease, withRunLease } from '#shared/state/operations/run-lease.js';
import { marshall } from '@aws-sdk/util-dynamodb';
import { freshStore } from '../support/table.js';

let store: Store;
let clock: Date;
beforeEach(async () => {
  clock = new Date('2026-11-21T10:00:00Z');
  store = await freshStore({ now: () => clock });
});

const lease = (holder: string) => ({ job: 'cleanupSweep', holder, durationMs: 300_000 });
const contextOf = (id: string): LeaseContext => ({ awsRequestId: id, getRemainingTimeInMillis: () => 300_000 });

describe('the lease of a scheduled job', () => {
  it('is taken by one run; a second run meanwhile exits at once, running nothing', async () => {
    let runs = 0;
    let second: unknown;
    const first = await withRunLease(store, lease('run-1'), async () => {
      runs++;
      second = await withRunLease(store, lease('run-2'), async () => runs++);
      return 'done';
    });
    expect(first).toBe('done');
    expect(second).toEqual(SKIPPED);
    expect(runs).toBe(1);
  });

  it('is released when a run ends, failed or not, so the next run goes ahead', async () => {
    await expect(withRunLease(store, lease('run-1'), async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await withRunLease(store, lease('run-2'), async () => 'ran')).toBe('ran');
    expect((await store.doc.send(new GetCommand({ TableName: store.table, Key: runLeaseKey('cleanupSweep') }))).Item).toBeUndefined();
  });

  it('runs out after its duration when a run crashed holding it, and not before', async () => {
    expect(await takeRunLease(store, lease('crashed'))).toBe(true);
    clock = new Date(clock.getTime() + 299_999);
    expect(await takeRunLease(store, lease('next'))).toBe(false);
    clock = new Date(clock.getTime() + 1);
    expect(await takeRunLease(store, lease('next'))).toBe(true);
  });

  it("is never released by a run that outlived it: the lease is the next run's", async () => {
    expect(await takeRunLease(store, lease('slow'))).toBe(true);
    clock = new Date(clock.getTime() + 300_000);
    expect(await takeRunLease(store, lease('next'))).toBe(true);
    await releaseRunLease(store, { job: 'cleanupSweep', holder: 'slow' });
    expect(await takeRunLease(store, lease('third'))).toBe(false);
  });

  it('is held per job: the watchdog runs while the sweep holds its lease', async () => {
    expect(await takeRunLease(store, lease('sweep'))).toBe(true);
    expect(await takeRunLease(store, { job: 'watchdog', holder: 'w', durationMs: 60_000 })).toBe(true);
  });

  it('wraps a Lambda entry point: the lease is held by the request id for the time the invocation has left', async () => {
    let seen: unknown;
    const handler = singleRun(
      'watchdog',
      () => store,
      async (event: string) => {
        seen = (await store.doc.send(new GetCommand({ TableName: store.table, Key: runLeaseKey('watchdog') }))).Item;
        expect(await handler('again', contextOf('req-2'))).toEqual(SKIPPED);
        return `ran ${event}`;
      },
    );
    expect(await handler('tick', contextOf('req-1'))).toBe('ran tick');
    expect(seen).toMatchObject({ holder: 'req-1', heldUntil: clock.getTime() + 300_000 });
  });

  it('sends neither stream consumer a record: its writes invoke no function', () => {
    const item = { ...runLeaseKey('watchdog'), holder: 'req-1', heldUntil: 1 };
    const record = { eventName: 'INSERT' as const, dynamodb: { NewImage: marshall(item) as never } };
    for (const consumer of STREAM_CONSUMERS) expect(recordMatches(consumer.filter, record), consumer.name).toBe(false);
  });
});
