// The notifier's relation fan-out: who must run relation hooks when a relation, a scope or a
// unit's settings change.
import { GetQueueUrlCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import { hintStep } from '../../functions/changes/hints.js';
import { streamBatchHandler, type StreamBatchHandler } from '../../functions/stream-batch.js';
import type { Relation } from '#shared/domain/entities.js';
import { refs } from '#shared/domain/plan.js';
import { getRelation, getUnit } from '#shared/state/engine/reads.js';
import { decodeHint, type Hint } from '#shared/messaging/hint.js';
import { ensureMachineQueue, isQueueMissing, queueName } from '#shared/messaging/machine-queues.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { writeSettings } from '#shared/state/operations/relation-settings.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { useSqsServer } from '../support/sqs.js';
import { insertRecords, modifyRecord, readItem, streamEvent, streamRecord } from '../support/stream.js';
import { freshStore } from '../support/table.js';
import { silentLogger } from '../support/silent-logger.js';

const sqsServer = useSqsServer();
let store: Store;
let sqs: SQSClient;
let controllerId: string;
/** The changes function's hint step alone, as that function runs it (functions/changes/handler.ts). */
let notifier: StreamBatchHandler;
let controllers = 0;

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  sqs = sqsServer.client();
  controllerId = `relations-${++controllers}`;
  notifier = streamBatchHandler(hintStep({ store, sqs, controllerId }, silentLogger), { inParallel: false });
  // wordpress/0,1 on machines 0,1; mysql/0,1 on machines 2,3; varnish/0 on machine 4.
  await deploy(store, { charm: charms.wordpress, numUnits: 2 });
  await deploy(store, { charm: charms.mysql, numUnits: 2 });
  await deploy(store, { charm: charms.varnish, numUnits: 1 });
});

async function hintedMachines(): Promise<Record<string, Hint[]>> {
  const out: Record<string, Hint[]> = {};
  for (const machine of ['0', '1', '2', '3', '4', '5']) {
    let url: string | undefined;
    try {
      url = (await sqs.send(new GetQueueUrlCommand({ QueueName: queueName(controllerId, 'default', machine) }))).QueueUrl;
    } catch (e) {
      if (isQueueMissing(e)) continue;
      throw e;
    }
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (Messages.length > 0) out[machine] = Messages.map((m) => decodeHint(m.Body)!);
  }
  return out;
}

const each = (machines: string[], hint: Hint) => Object.fromEntries(machines.map((m) => [m, [hint]]));

describe('notifier and relations', () => {
  it('a new relation hints every unit of both applications, so they enter its scope', async () => {
    const { key } = await addRelation(store, ['wordpress', 'mysql']);
    await notifier(streamEvent(await insertRecords(store, [refs.relation(key)])));
    expect(await hintedMachines()).toEqual(each(['0', '1', '2', '3'], { kind: 'relation', id: key }));
  });

  it('a unit entering a global scope hints the units already in it, and itself', async () => {
    const { key } = await addRelation(store, ['wordpress', 'mysql']);
    await enterScope(store, 'wordpress/0', key, {});
    await enterScope(store, 'mysql/1', key, {});
    await notifier(streamEvent(await insertRecords(store, [refs.scope(await relationOf(key), 'mysql/1')])));
    expect(await hintedMachines()).toEqual(each(['0', '3'], { kind: 'relation', id: key }));
  });

  it('a settings change hints the units in the relation\'s scope ("relation-changed")', async () => {
    const { key, id } = await addRelation(store, ['wordpress', 'mysql']);
    await enterScope(store, 'wordpress/1', key, {});
    await enterScope(store, 'mysql/0', key, { host: 'a' });
    const record = await modifyRecord(store, refs.settings(id, 'mysql/0'), () => writeSettings(store, id, 'mysql/0', { host: 'b' }));
    await notifier(streamEvent([record]));
    expect(await hintedMachines()).toEqual(each(['1', '2'], { kind: 'settings', id: `${id}:mysql/0` }));
  });

  it('a unit entering a container-scoped relation hints only its own machine', async () => {
    await deploy(store, { charm: charms.logging });
    const { key } = await addRelation(store, ['wordpress:logging-dir', 'logging:logging-directory']);
    await enterScope(store, 'wordpress/0', key, {});
    await enterScope(store, 'wordpress/1', key, {});
    await notifier(streamEvent(await insertRecords(store, [refs.scope(await relationOf(key), 'wordpress/1')])));
    expect(await hintedMachines()).toEqual(each(['1'], { kind: 'relation', id: key }));
  });

  it('a unit removed from its machine hints that machine only while the machine exists', async () => {
    const unit = await readItem(store, refs.unit('varnish/0'));
    const gone = { ...unit!, machine: '99' };
    await notifier(streamEvent([streamRecord({ oldItem: unit! }), streamRecord({ oldItem: gone })]));
    expect(await hintedMachines()).toEqual(each(['4'], { kind: 'unit', id: 'varnish/0' }));
  });

  it("a batch of one relation's scope and settings records reads the scope once, and hints each machine once: the relation's hint covers the settings", async () => {
    const { key, id } = await addRelation(store, ['wordpress', 'mysql']);
    for (const unit of ['wordpress/0', 'wordpress/1', 'mysql/0', 'mysql/1']) await enterScope(store, unit, key, { host: unit });
    const relation = await relationOf(key);
    const scopeQueries = countScopeQueries(key);
    const records = [
      ...(await insertRecords(
        store,
        ['wordpress/0', 'wordpress/1', 'mysql/0', 'mysql/1'].map((u) => refs.scope(relation, u)),
      )),
      await modifyRecord(store, refs.settings(id, 'mysql/0'), () => writeSettings(store, id, 'mysql/0', { host: 'b' })),
      await modifyRecord(store, refs.settings(id, 'mysql/1'), () => writeSettings(store, id, 'mysql/1', { host: 'c' })),
    ];
    await notifier(streamEvent(records));
    // Once: one Query per partition of the scope (shared/domain/shards.ts).
    expect(scopeQueries()).toBe(relation.scopeShards);
    // On a relation hint an agent reads every member's settings version, after the whole batch was committed.
    expect(await hintedMachines()).toEqual(each(['0', '1', '2', '3'], { kind: 'relation', id: key }));
  });

  it('settings records hint as before when no hint of their relation went out in the batch', async () => {
    const { key, id } = await addRelation(store, ['wordpress', 'mysql']);
    for (const unit of ['wordpress/0', 'mysql/0', 'mysql/1']) await enterScope(store, unit, key, { host: unit });
    const records = [
      await modifyRecord(store, refs.settings(id, 'mysql/0'), () => writeSettings(store, id, 'mysql/0', { host: 'b' })),
      await modifyRecord(store, refs.settings(id, 'mysql/1'), () => writeSettings(store, id, 'mysql/1', { host: 'c' })),
    ];
    await notifier(streamEvent(records));
    const hinted = await hintedMachines();
    expect(Object.keys(hinted).sort()).toEqual(['0', '2', '3']);
    for (const machine of ['0', '2', '3'])
      expect(hinted[machine]).toEqual(
        expect.arrayContaining([
          { kind: 'settings', id: `${id}:mysql/0` },
          { kind: 'settings', id: `${id}:mysql/1` },
        ]),
      );
  });

  it("a batch's reads grow with the relations and units it names, not with its records times the scope", async () => {
    await addUnits(store, 'mysql', { count: 10 });
    const { key, id } = await addRelation(store, ['wordpress', 'mysql']);
    const members = ['wordpress/0', 'wordpress/1', ...Array.from({ length: 12 }, (_, i) => `mysql/${i}`)];
    for (const unit of members) await enterScope(store, unit, key, { host: unit });
    const relation = await relationOf(key);
    const records = [
      ...(await insertRecords(
        store,
        members.map((u) => refs.scope(relation, u)),
      )),
      ...(await Promise.all(
        members.map((u) => modifyRecord(store, refs.settings(id, u), () => writeSettings(store, id, u, { host: `${u}-b` }))),
      )),
    ];
    // Their machines' queues exist, as the provisioner makes them: a queue the notifier had to
    // re-create costs a read of its machine (queue-instance-tag.ts), which is not this count's.
    const machines = new Set((await Promise.all(members.map((u) => getUnit(store, u)))).map((u) => u!.machine!));
    for (const machine of machines) await ensureMachineQueue(sqs, controllerId, 'default', machine);
    const reads = countReads();
    await notifier(streamEvent(records));
    // The units the records name (one BatchGetItem), their relations (one), the scope (one Query
    // per partition: shared/domain/shards.ts).
    expect(reads()).toBe(2 + relation.scopeShards!);
    expect(Object.keys(await hintedMachines()).length).toBeGreaterThan(0);
  });
});

/** Counts the reads (GetItem, BatchGetItem, Query) the store sends from now on. */
function countReads(): () => number {
  let count = 0;
  const send = store.doc.send.bind(store.doc);
  store.doc.send = ((command: object, ...rest: unknown[]) => {
    if (['GetCommand', 'BatchGetCommand', 'QueryCommand'].includes(command.constructor.name)) count++;
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as typeof store.doc.send;
  return () => count;
}

/** Counts the queries of a relation's scope (SCOPE# members of its partitions) the store sends from now on. */
function countScopeQueries(relationKey: string): () => number {
  let count = 0;
  const send = store.doc.send.bind(store.doc);
  store.doc.send = ((
    command: { input?: { KeyConditionExpression?: string; ExpressionAttributeValues?: Record<string, unknown> } },
    ...rest: unknown[]
  ) => {
    const values = Object.values(command.input?.ExpressionAttributeValues ?? {}).map(String);
    const ofRelation = (v: string) => v.endsWith(`REL#${relationKey}`) || v.includes(`REL#${relationKey}#SCOPE#`);
    if (values.some(ofRelation) && values.some((v) => v.startsWith('SCOPE#'))) count++;
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as typeof store.doc.send;
  return () => count;
}

const relationOf = async (key: string) => (await getRelation(store, key)) as Relation;
