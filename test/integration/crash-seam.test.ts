// The fault seam itself (test/support/fault-seam.ts), against DynamoDB Local and fauxqs: what it
// names and counts, and that a kill is process death (nothing after it runs) while a failure is not.
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { ListQueuesCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getMachine } from '#shared/state/engine/reads.js';
import { createStore } from '#shared/state/engine/store.js';
import { MemoryProvider } from '../support/fault-provider.js';
import { Crash, FaultSeam, InjectedFault, stepName } from '../support/fault-seam.js';
import { useSqsServer } from '../support/sqs.js';
import { freshStore } from '../support/table.js';
import { dynamoEndpoint } from '../support/dynamodb.js';

const sqs = useSqsServer();

async function storeThrough(seam: FaultSeam, process: string) {
  const observer = await freshStore();
  await ensureModel(observer);
  const store = createStore({ table: observer.table, endpoint: await dynamoEndpoint(), region: 'local' });
  seam.attachDynamo(store.client, process);
  return { observer, store };
}

describe('the fault seam', () => {
  it('records every call of a process by command name and count, document client calls included', async () => {
    const seam = new FaultSeam();
    const { store } = await storeThrough(seam, 'api');
    await addMachines(store);
    await getMachine(store, '0');
    await store.client.send(new GetItemCommand({ TableName: store.table, Key: { pk: { S: 'x' }, sk: { S: 'y' } } }));
    const names = seam.steps.map(stepName);
    expect(names).toContain('api:TransactWriteItems#1');
    expect(names.filter((n) => n.startsWith('api:GetItem#')).length).toBeGreaterThanOrEqual(2);
    expect(new Set(names).size).toBe(names.length);
  });

  it('kills before a call: the call is not made, and nothing the process does after it runs until it is revived', async () => {
    const seam = new FaultSeam();
    const { store, observer } = await storeThrough(seam, 'api');
    seam.arm({ process: 'api', call: 'TransactWriteItems', count: 1, phase: 'before', action: 'kill' });
    await expect(addMachines(store)).rejects.toBeInstanceOf(Crash);
    expect(await getMachine(observer, '0')).toBeUndefined();
    await expect(getMachine(store, '0')).rejects.toBeInstanceOf(Crash);
    expect(seam.isDead('api')).toBe(true);
    seam.revive('api');
    // Machine 0's id was reserved before the killed transaction: a gap, not handed out again.
    const [id] = await addMachines(store);
    expect(id).toBe('1');
    expect(await getMachine(observer, '1')).toBeDefined();
  });

  it('kills after a call: the call took effect, its answer is lost', async () => {
    const seam = new FaultSeam();
    const { store, observer } = await storeThrough(seam, 'api');
    seam.arm({ process: 'api', call: 'TransactWriteItems', count: 1, phase: 'after', action: 'kill' });
    await expect(addMachines(store)).rejects.toBeInstanceOf(Crash);
    expect(await getMachine(observer, '0')).toBeDefined();
    expect(seam.fired).toHaveLength(1);
  });

  it('fails a call once with a transient error: the process lives on', async () => {
    const seam = new FaultSeam();
    const client = seam.attachSqs(createSqsClient({ endpoint: sqs.endpoint, region: 'us-east-1' }), 'changes');
    seam.arm({ process: 'changes', call: 'ListQueues', count: 1, phase: 'before', action: 'fail' });
    await expect(client.send(new ListQueuesCommand({}))).rejects.toBeInstanceOf(InjectedFault);
    expect(seam.isDead('changes')).toBe(false);
    await expect(client.send(new ListQueuesCommand({}))).resolves.toBeDefined();
    expect(seam.steps.map(stepName)).toEqual(['changes:ListQueues#1', 'changes:ListQueues#2']);
    client.destroy();
  });

  it('counts provider calls per process and kills a process whose parallel call died', async () => {
    const seam = new FaultSeam();
    const provider = seam.wrapProvider(new MemoryProvider(), 'provisioner');
    seam.arm({ process: 'provisioner', call: 'listInstances', count: 1, phase: 'before', action: 'kill' });
    const request = {
      controllerId: 'c',
      model: 'default',
      machineId: '0',
      attempt: 0,
      series: 'jammy',
      constraints: {},
      agent: { apiUrl: '', credential: '', queueUrl: '' },
    };
    const [started, listed] = await Promise.allSettled([
      seam.around('provisioner', 'work', () => provider.startInstance(request)),
      provider.listInstances('c'),
    ]);
    expect(listed.status).toBe('rejected');
    // The start ran alongside, but its process died meanwhile: its result is lost too.
    expect(started.status).toBe('rejected');
    expect((started as PromiseRejectedResult).reason).toBeInstanceOf(Crash);
  });
});
