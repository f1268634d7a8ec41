import { Logger } from '@aws-lambda-powertools/logger';
import { GetQueueUrlCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { hintStep } from '../../functions/changes/hints.js';
import { streamBatchHandler, type StreamBatchHandler } from '../../functions/stream-batch.js';
import { refs } from '#shared/domain/plan.js';
import { decodeHint, type Hint } from '#shared/messaging/hint.js';
import { isQueueMissing, queueName } from '#shared/messaging/machine-queues.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { setApplicationConfig } from '#shared/state/operations/application-config.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { useSqsServer } from '../support/sqs.js';
import { insertRecords, modifyRecord, streamEvent, streamRecord } from '../support/stream.js';
import { freshStore } from '../support/table.js';

const sqsServer = useSqsServer();
let store: Store;
let sqs: SQSClient;
let controllerId: string;
let logger: Logger;
/** The changes function's hint step alone, as that function runs it (functions/changes/handler.ts). */
let notifier: StreamBatchHandler;
let controllers = 0;

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  sqs = sqsServer.client();
  // Queues are named after the controller: a controller per test keeps tests' queues apart.
  controllerId = `notifier-${++controllers}`;
  logger = new Logger({ serviceName: 'notifier-test', logLevel: 'SILENT' });
  notifier = streamBatchHandler(hintStep({ store, sqs, controllerId }, logger), { inParallel: false });
});

/** Every hint waiting on a machine's queue; [] if it has no queue. */
async function hintsOf(machineId: string): Promise<Hint[]> {
  let url: string | undefined;
  try {
    url = (await sqs.send(new GetQueueUrlCommand({ QueueName: queueName(controllerId, 'default', machineId) }))).QueueUrl;
  } catch (e) {
    if (isQueueMissing(e)) return [];
    throw e;
  }
  const hints: Hint[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (Messages.length === 0) return hints;
    hints.push(...Messages.map((m) => decodeHint(m.Body)!));
  }
}

/** Makes SendMessageBatch to one machine's queue fail, as an SQS outage would. */
function breakQueueOf(machineId: string) {
  const name = queueName(controllerId, 'default', machineId);
  sqs.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { QueueUrl?: string };
      if (context.commandName === 'SendMessageBatchCommand' && input.QueueUrl?.endsWith(`/${name}`))
        throw new Error(`injected outage for ${name}`);
      return next(args);
    },
    { step: 'initialize', name: `break-${name}` },
  );
}

describe('notifier', () => {
  it('hints exactly the machines of the units whose records arrive', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 2 });
    await deploy(store, { charm: charms.varnish, numUnits: 1 });
    const records = await insertRecords(store, [refs.unit('mysql/0'), refs.unit('mysql/1')]);

    expect(await notifier(streamEvent(records))).toEqual({ batchItemFailures: [] });

    expect(await hintsOf('0')).toEqual([{ kind: 'unit', id: 'mysql/0' }]);
    expect(await hintsOf('1')).toEqual([{ kind: 'unit', id: 'mysql/1' }]);
    expect(await hintsOf('2')).toEqual([]);
  });

  it('hints every machine of an application\'s units when its config changes ("config-changed")', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 3 });
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    const record = await modifyRecord(store, refs.application('wordpress'), () =>
      setApplicationConfig(store, 'wordpress', { set: { 'blog-title': 'New' } }),
    );

    expect(await notifier(streamEvent([record]))).toEqual({ batchItemFailures: [] });

    for (const machine of ['0', '1', '2']) expect(await hintsOf(machine)).toEqual([{ kind: 'application', id: 'wordpress' }]);
    expect(await hintsOf('3')).toEqual([]);
  });

  it("hints nobody when only the application's unit count changes (add-unit)", async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 2 });
    const record = await modifyRecord(store, refs.application('mysql'), () => addUnits(store, 'mysql'));

    expect(await notifier(streamEvent([record]))).toEqual({ batchItemFailures: [] });

    for (const machine of ['0', '1', '2']) expect(await hintsOf(machine)).toEqual([]);
  });

  it('reports a record whose hint could not be sent, and only that record', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 2 });
    const [first, second] = await insertRecords(store, [refs.unit('mysql/0'), refs.unit('mysql/1')]);
    breakQueueOf('1');

    const response = await notifier(streamEvent([first!, second!]));

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: second!.dynamodb!.SequenceNumber }]);
    expect(await hintsOf('0')).toEqual([{ kind: 'unit', id: 'mysql/0' }]);
  });

  it("sends each machine the batch's hints for it in one request", async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 2 });
    const records = await insertRecords(store, [refs.unit('mysql/0'), refs.machine('0'), refs.unit('mysql/1')]);
    const sends: { queue: string; entries: number }[] = [];
    sqs.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { QueueUrl?: string; Entries?: unknown[] };
        if (context.commandName === 'SendMessageBatchCommand') sends.push({ queue: input.QueueUrl!, entries: input.Entries!.length });
        return next(args);
      },
      { step: 'initialize', name: 'count-sends' },
    );

    expect(await notifier(streamEvent(records))).toEqual({ batchItemFailures: [] });

    expect(sends.map((s) => s.entries).sort()).toEqual([1, 2]);
    expect(sends.find((s) => s.entries === 2)!.queue).toMatch(new RegExp(`/${queueName(controllerId, 'default', '0')}$`));
    expect(await hintsOf('0')).toEqual(
      expect.arrayContaining([
        { kind: 'unit', id: 'mysql/0' },
        { kind: 'machine', id: '0' },
      ]),
    );
    expect(await hintsOf('1')).toEqual([{ kind: 'unit', id: 'mysql/1' }]);
  });

  it('logs and skips a record that is not a drover entity, without failing it', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    const warn = vi.spyOn(logger, 'warn');
    const [unit] = await insertRecords(store, [refs.unit('mysql/0')]);
    const noKind = streamRecord({ newItem: { pk: 'default#SOMETHING', sk: 'ITEM', machine: '0' } });
    const noImage = streamRecord({});

    const response = await notifier(streamEvent([noKind, unit!, noImage]));

    expect(response).toEqual({ batchItemFailures: [] });
    expect(warn).toHaveBeenCalledTimes(2);
    expect(await hintsOf('0')).toEqual([{ kind: 'unit', id: 'mysql/0' }]);
  });
});
