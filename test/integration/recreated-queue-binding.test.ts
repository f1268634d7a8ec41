// A machine queue the `changes` function has to re-create (deleted behind its back, or the local
// server restarted) is bound at once to the instance its machine records: a new queue carries no
// instance tag, only a tagged queue admits the machine's agent (infra/machines.ts), and the
// provisioner's reconcile leaves running machines alone — without this, the agent would miss its
// hints until its next resync.
import { DeleteQueueCommand, ListQueueTagsCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import { HintOutbox } from '#shared/messaging/hint-outbox.js';
import { ensureMachineQueue } from '#shared/messaging/machine-queues.js';
import { admitRecordedInstance, INSTANCE_TAG } from '#shared/messaging/queue-instance-tag.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { recordInstance } from '#shared/state/operations/provisioning.js';
import type { Store } from '#shared/state/engine/store.js';
import { freshStore } from '../support/table.js';
import { useSqsServer } from '../support/sqs.js';

const sqsServer = useSqsServer();
let sqs: SQSClient;
let store: Store;
let controllerId: string;
beforeEach(async () => {
  sqs = sqsServer.client();
  store = await freshStore();
  await ensureModel(store);
  controllerId = `rq${Math.random().toString(36).slice(2, 8)}`;
});

const tagsOf = async (url: string) => (await sqs.send(new ListQueueTagsCommand({ QueueUrl: url }))).Tags ?? {};

async function hintThroughOutbox(machineId: string) {
  const outbox = new HintOutbox({
    sqs,
    controllerId,
    model: store.model,
    onQueueCreated: (machine, url) => admitRecordedInstance(store, sqs, machine, url),
  });
  await outbox.add([machineId], { kind: 'machine', id: machineId } as never, 0);
  return outbox.finish();
}

describe('a machine queue re-created by a hint', () => {
  it("carries its running machine's instance tag again, so its agent receives the hint at once", async () => {
    const [machine] = await addMachines(store);
    await recordInstance(store, machine!, { instanceId: 'i-0aaaaaaaaaaaaaaa0', attempt: 0 });
    const url = await ensureMachineQueue(sqs, controllerId, store.model, machine!);
    await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
    expect((await hintThroughOutbox(machine!)).size).toBe(0);
    const recreated = await ensureMachineQueue(sqs, controllerId, store.model, machine!);
    expect((await tagsOf(recreated))[INSTANCE_TAG]).toMatch(/:instance\/i-0aaaaaaaaaaaaaaa0$/);
  });

  it('stays unbound for a machine with no instance yet: the provisioner binds it when it starts one', async () => {
    const [machine] = await addMachines(store);
    expect((await hintThroughOutbox(machine!)).size).toBe(0);
    const created = await ensureMachineQueue(sqs, controllerId, store.model, machine!);
    expect((await tagsOf(created))[INSTANCE_TAG]).toBeUndefined();
  });
});
