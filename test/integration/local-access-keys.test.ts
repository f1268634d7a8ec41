// DynamoDB Local and the SQS server of the local controller let in only the controller's own
// access keys (embedded/DynamoDbLocalLauncher.java, embedded/sqs-access.ts): a local user with
// made-up credentials is answered 403, and an agent's key reaches its own queue only.
import { randomBytes } from 'node:crypto';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueUrlCommand, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../embedded/dynamodb-local.js';
import { agentSqsAccessKey } from '../../embedded/sqs-access.js';
import { startSqsServer, type SqsServer } from '../../embedded/sqs-server.js';
import { deadLetterQueueName, ensureMachineQueue, queueName } from '#shared/messaging/machine-queues.js';
import { createSqsClient, queueNameOfUrl } from '#shared/messaging/sqs-client.js';
import { localCredentials } from '#shared/state/engine/local-credentials.js';

/** What a refused SDK call threw: its error name and HTTP status. */
const refusal = (call: Promise<unknown>) =>
  call.then(
    () => 'accepted',
    (e: { name: string; $metadata?: { httpStatusCode?: number } }) => `${e.name} ${e.$metadata?.httpStatusCode}`,
  );

describe("the local controller's DynamoDB Local", () => {
  const key = randomBytes(32).toString('hex');
  let db: DynamoDbLocal;
  const client = (accessKeyId: string) =>
    new DynamoDBClient({ endpoint: db.endpoint, region: 'local', credentials: localCredentials(accessKeyId), maxAttempts: 1 });
  beforeAll(async () => {
    db = await startDynamoDbLocal({ accessKeyId: key });
  }, 60_000);
  afterAll(() => db?.stop());

  it("answers the controller's key, and 403 to made-up ones or none", async () => {
    expect(await refusal(client(key).send(new ListTablesCommand({})))).toBe('accepted');
    for (const madeUp of ['local', 'AKIAIOSFODNN7EXAMPLE', key.slice(0, -1), `${key}0`])
      expect(await refusal(client(madeUp).send(new ListTablesCommand({})))).toBe('UnrecognizedClientException 403');
    const unsigned = await fetch(db.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables' },
      body: '{}',
    });
    expect([unsigned.status, await unsigned.text()]).toEqual([
      403,
      '{"__type":"com.amazonaws.dynamodb.v20120810#UnrecognizedClientException","message":"The security token included in the request is invalid."}',
    ]);
  });
});

describe("the local controller's SQS server", () => {
  const key = randomBytes(32).toString('hex');
  let server: SqsServer;
  let controller: SQSClient;
  let queues: { mine: string; other: string; deadLetters: string };
  const client = (accessKeyId: string) => createSqsClient({ endpoint: server.endpoint, region: 'local', accessKeyId });
  beforeAll(async () => {
    server = await startSqsServer({ access: { key, deadLetterQueue: deadLetterQueueName('test') } });
    controller = client(key);
    // As the controller makes them (the dead-letter queue too).
    const machine = (id: string) => ensureMachineQueue(controller, 'test', 'default', id);
    queues = {
      mine: await machine('0'),
      other: await machine('1'),
      deadLetters: (await controller.send(new GetQueueUrlCommand({ QueueName: deadLetterQueueName('test') }))).QueueUrl!,
    };
  });
  afterAll(() => server?.stop());

  it("answers the controller's key on every queue, and 403 to made-up keys", async () => {
    expect(await refusal(controller.send(new SendMessageCommand({ QueueUrl: queues.other, MessageBody: 'hint' })))).toBe('accepted');
    for (const madeUp of ['local', key.slice(1), `agent:${queueName('test', 'default', '0')}:${'0'.repeat(64)}`])
      expect(await refusal(client(madeUp).send(new SendMessageCommand({ QueueUrl: queues.mine, MessageBody: 'forged' })))).toBe(
        'UnrecognizedClientException 403',
      );
    // fauxqs's own inspection routes are behind the same door.
    expect((await fetch(`${server.endpoint}/_fauxqs/queues`)).status).toBe(403);
  });

  it("lets an agent's key reach its own queue, see the dead-letter queue exists, and no more", async () => {
    const agent = client(agentSqsAccessKey(key, queueNameOfUrl(queues.mine)));
    expect(await refusal(agent.send(new ReceiveMessageCommand({ QueueUrl: queues.mine, WaitTimeSeconds: 0 })))).toBe('accepted');
    expect(await refusal(agent.send(new ReceiveMessageCommand({ QueueUrl: queues.other, WaitTimeSeconds: 0 })))).toBe(
      'AccessDeniedException 403',
    );
    expect(await refusal(agent.send(new SendMessageCommand({ QueueUrl: queues.other, MessageBody: 'forged' })))).toBe(
      'AccessDeniedException 403',
    );
    // Making its queue again (an agent that finds it gone) names the dead-letter queue ...
    expect(await refusal(ensureMachineQueue(agent, 'test', 'default', '0'))).toBe('accepted');
    // ... whose dead hints, every machine's, it may not read, nor send one there.
    for (const call of [
      new ReceiveMessageCommand({ QueueUrl: queues.deadLetters, WaitTimeSeconds: 0 }),
      new SendMessageCommand({ QueueUrl: queues.deadLetters, MessageBody: 'x' }),
    ])
      expect(await refusal(agent.send(call as ReceiveMessageCommand))).toBe('AccessDeniedException 403');
  });
});
