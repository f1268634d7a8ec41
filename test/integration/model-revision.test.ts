// The model's revision (shared/state/operations/model-revision.ts): the `changes` function moves it
// once per batch for each model the batch changed, never for another model, never for a record of
// the revision item itself (or each move would bring the next), and a retried batch only moves it
// further. Fed first with records built from real items, then by the local stream poller from
// DynamoDB Local's stream, as the local controller runs it; read back through the user API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { createChangesHandler } from '../../functions/changes/handler.js';
import { recordMatches, streamConsumer } from '../../functions/stream-consumers.js';
import { pollerSettingsOf } from '../../embedded/stream/consumer-settings.js';
import { createStreamPoller, type StreamPoller } from '../../embedded/stream-poller.js';
import { refs } from '#shared/domain/plan.js';
import { parseConstraints } from '#shared/domain/constraints.js';
import { MODEL_HEADER } from '#shared/api/model-header.js';
import { keyOf } from '#shared/state/engine/keys.js';
import type { Store } from '#shared/state/engine/store.js';
import { addModel, ensureModel, setModelConstraints } from '#shared/state/operations/model.js';
import { storeOfModel } from '#shared/state/queries/models.js';
import { readModelRevision } from '#shared/state/queries/model-revision.js';
import { apiEvent } from '../support/api-events.js';
import { API_TOKEN, testApiHandler } from '../support/api-handler.js';
import { waitFor } from '../support/wait-for.js';
import { useSqsServer } from '../support/sqs.js';
import { modifyRecord, readItem, streamEvent, streamRecord } from '../support/stream.js';
import { freshStore } from '../support/table.js';
import { dynamoEndpoint } from '../support/dynamodb.js';
import { silentLogger } from '../support/silent-logger.js';

const sqsServer = useSqsServer();

let store: Store;
let other: Store;
let changes: ReturnType<typeof createChangesHandler>;

/** A MODIFY record of the model item of `target`, as a change of its constraints writes it. */
const modelChange = (target: Store, constraints: string) =>
  modifyRecord(target, refs.model(), () => setModelConstraints(target, parseConstraints(constraints)));

beforeAll(async () => {
  store = await freshStore();
  await ensureModel(store);
  await addModel(store, { name: 'other' });
  other = await storeOfModel(store, 'other');
  changes = createChangesHandler({ store, sqs: sqsServer.client(), controllerId: 'revision-test', logger: silentLogger });
});

describe("the model's revision", () => {
  it('is 0 before anything moved it, and moves once for a batch of changes to its model, not for another model', async () => {
    expect(await readModelRevision(store)).toBe(0);
    const records = [await modelChange(store, 'mem=1G'), await modelChange(store, 'mem=2G'), await modelChange(store, 'mem=3G')];
    const answer = await changes(streamEvent(records));
    expect(answer.batchItemFailures).toEqual([]);
    const first = await readModelRevision(store);
    expect(first).toBeGreaterThan(0);
    expect(await readModelRevision(other)).toBe(0);

    await changes(streamEvent([await modelChange(store, 'mem=4G')]));
    expect(await readModelRevision(store)).toBe(first + 1);
    expect(await readModelRevision(other)).toBe(0);

    // A batch of both models moves each once.
    await changes(streamEvent([await modelChange(other, 'cores=2'), await modelChange(store, 'mem=5G')]));
    expect(await readModelRevision(store)).toBe(first + 2);
    expect(await readModelRevision(other)).toBeGreaterThan(0);
  });

  it('is not moved by a record of the revision item itself, and its records pass neither filter', async () => {
    const before = await readModelRevision(store);
    const item = await readItem(store, refs.modelRevision());
    expect(item).toBeDefined();
    const own = streamRecord({ oldItem: { ...item!, revision: before - 1 }, newItem: item! });
    // The mapping (and the local poller) never deliver it...
    expect(recordMatches(streamConsumer('changes').filter, own)).toBe(false);
    expect(recordMatches(streamConsumer('provisioner').filter, own)).toBe(false);
    // ...and delivered anyway, a batch of nothing else moves nothing.
    expect((await changes(streamEvent([own, own]))).batchItemFailures).toEqual([]);
    expect(await readModelRevision(store)).toBe(before);
  });

  it('only moves on when a batch is retried, and past every old value when its item expired', async () => {
    const record = await modelChange(store, 'mem=6G');
    const before = await readModelRevision(store);
    await changes(streamEvent([record]));
    await changes(streamEvent([record]));
    const after = await readModelRevision(store);
    expect(after).toBe(before + 2);
    // TTL took it (an idle model's, after two weeks): the next move starts past the old value.
    await store.doc.send(new DeleteCommand({ TableName: store.table, Key: keyOf(store.model, refs.modelRevision()) }));
    expect(await readModelRevision(store)).toBe(0);
    await changes(streamEvent([record]));
    expect(await readModelRevision(store)).toBeGreaterThan(after);
    expect((await readItem(store, refs.modelRevision()))?.expiresAt).toBeGreaterThan(Date.now() / 1000);
  });

  it('is answered by GET /v1/model-revision from one item read, with whether it moved since a revision given', async () => {
    const api = await testApiHandler(store);
    const ask = async (model: string, query: string) => {
      const event = apiEvent('GET', '/v1/model-revision', undefined, API_TOKEN);
      event.rawQueryString = query;
      event.headers[MODEL_HEADER] = model;
      const res = await api(event);
      return { status: res.statusCode, body: JSON.parse(String(res.body)) as Record<string, unknown> };
    };
    const revision = await readModelRevision(other);
    expect(await ask('other', '')).toEqual({ status: 200, body: { revision } });
    expect(await ask('other', `since=${revision}`)).toEqual({ status: 200, body: { revision, changed: false } });
    expect(await ask('other', `since=${revision - 1}`)).toEqual({ status: 200, body: { revision, changed: true } });
    const refused = await ask('other', 'since=soon');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ message: expect.stringMatching(/since/) });
    // The model's name, then its revision: nothing else is read.
    const gets: string[] = [];
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        gets.push(context.commandName ?? '');
        return next(args);
      },
      { step: 'initialize', name: 'revisionTestCounter' },
    );
    try {
      await ask('other', `since=${revision}`);
    } finally {
      store.client.middlewareStack.remove('revisionTestCounter');
    }
    expect(gets).toEqual(['GetItemCommand', 'GetItemCommand']);
  });
});

describe('the revision, fed by the stream as the local controller feeds it', () => {
  let poller: StreamPoller;
  let fed: Store;

  beforeAll(async () => {
    fed = await freshStore();
    await ensureModel(fed);
    poller = createStreamPoller({
      ...pollerSettingsOf(streamConsumer('changes')),
      tableName: fed.table,
      endpoint: await dynamoEndpoint(),
      region: 'local',
      startingPosition: 'TRIM_HORIZON',
      handler: createChangesHandler({ store: fed, sqs: sqsServer.client(), controllerId: 'revision-test', logger: silentLogger }),
      onFailure: async () => undefined,
      pollIntervalMs: 50,
      retryDelayMs: 20,
      log: () => undefined,
    });
    await poller.start();
  });

  afterAll(async () => {
    await poller?.stop();
  });

  it('moves after a change committed through an operation, and settles: its own records bring no move', async () => {
    const moved = await waitFor(
      'the revision to move',
      () => readModelRevision(fed),
      (r) => r > 0,
    );
    await setModelConstraints(fed, parseConstraints('mem=8G'));
    const next = await waitFor(
      'the revision to move again',
      () => readModelRevision(fed),
      (r) => r > moved,
    );
    // Its own records reach the poller and are filtered out: once every record written so far was
    // handled, the revision stays where it is.
    await poller.drain();
    const settled = await readModelRevision(fed);
    expect(settled).toBeGreaterThanOrEqual(next);
    await poller.drain();
    expect(await readModelRevision(fed)).toBe(settled);
  });
});
