// Duplicated and reordered deliveries (docs/reliability.md, "Duplicated deliveries"): each stream
// consumer (provisioner, changes) gets every record twice, or a batch replayed from its
// first failed record (ReportBatchItemFailures); agents get every hint twice, or late and in
// reverse order, or a hint a dead agent's long poll took and never deleted. Each run is the flow
// of test/support/fault-flow.ts against DynamoDB Local and fauxqs, and must leave the table, after
// every step of the flow, exactly as the run with single, ordered deliveries did (times aside),
// with no extra instance and no extra hook run.
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StreamConsumerName } from '../../functions/stream-consumers.js';
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { charms } from '../support/charms.js';
import { runFlow } from '../support/fault-flow.js';
import { HintChaos } from '../support/fault-hints.js';
import { FaultSeam, type FaultPoint } from '../support/fault-seam.js';
import { CONSUMERS, normalisedDump, World, type WorldOptions } from '../support/fault-world.js';
import { useSqsServer } from '../support/sqs.js';
import { dynamoEndpoint } from '../support/dynamodb.js';

const sqs = useSqsServer();

async function flowWith(options: Partial<WorldOptions> = {}): Promise<World> {
  const world = await World.create({
    dynamoEndpoint: await dynamoEndpoint(),
    sqsEndpoint: sqs.endpoint,
    seam: new FaultSeam(),
    ...options,
  });
  try {
    await runFlow(world);
  } finally {
    await world.destroy();
  }
  return world;
}

const instancesMade = (world: World) => world.provider.instances.size;

let single: World;
beforeAll(async () => {
  single = await flowWith();
  expect(single.problems).toEqual([]);
  expect(single.snapshots.map((s) => s.step)).toEqual(['deploy', 'relate', 'remove-application']);
}, 120_000);

/** The same table after every step, the same instances and hooks as the single-delivery run. */
function expectSameAsSingle(world: World): void {
  expect(world.problems).toEqual([]);
  expect(world.snapshots).toEqual(single.snapshots);
  expect(instancesMade(world)).toBe(instancesMade(single));
  expect([...world.hookRuns].sort()).toEqual([...single.hookRuns].sort());
}

/**
 * The first write of each consumer's steps fails, so its batch reports that record and is
 * replayed from it: the provisioner's, and the changes function's cleanup and hint steps.
 */
const FIRST_FAILURES: [StreamConsumerName, Omit<FaultPoint, 'action' | 'phase'>][] = [
  ['provisioner', { process: 'provisioner', call: 'TransactWriteItems', count: 1 }],
  ['changes', { process: 'changes', call: 'TransactWriteItems', count: 1 }],
  ['changes', { process: 'changes', call: 'SendMessageBatch', count: 1 }],
];

describe.each(CONSUMERS)('the %s consumer', (consumer) => {
  it('given every stream record twice, and every batch again, changes nothing more than given each once', async () => {
    const world = await flowWith({ duplicateDeliveries: consumer });
    expectSameAsSingle(world);
    // It did get them: twice the deliveries of the single run, at least.
    expect(world.tap.deliveries).toBeGreaterThan(single.tap.deliveries);
  }, 120_000);
});

describe.each(FIRST_FAILURES)('the %s consumer, its first %j failing', (_consumer, point) => {
  it('replays a batch from its first failed record (batchItemFailures) with no effect from the records it had done', async () => {
    const seam = new FaultSeam();
    seam.arm({ ...point, phase: 'before', action: 'fail' });
    const world = await flowWith({ seam });
    expect(seam.fired).toHaveLength(1);
    expectSameAsSingle(world);
  }, 120_000);
});

describe('hints to agents', () => {
  it('each sent twice: agents decide the same', async () => {
    const hints = new HintChaos('duplicate');
    const world = await flowWith({ hints });
    expect(hints.sent).toBe(2 * hints.asked);
    expect(hints.asked).toBeGreaterThan(0);
    expectSameAsSingle(world);
  }, 120_000);

  it('held back until all else is quiet, then sent in reverse order: agents decide the same', async () => {
    const hints = new HintChaos('delay-and-reorder');
    const world = await flowWith({ hints });
    expect(hints.sent).toBe(hints.asked);
    expectSameAsSingle(world);
  }, 120_000);

  it("taken by a dead agent's long poll and never deleted: received again after the visibility timeout, with no effect", async () => {
    const world = await World.create({ dynamoEndpoint: await dynamoEndpoint(), sqsEndpoint: sqs.endpoint, seam: new FaultSeam() });
    const reader = createSqsClient({ endpoint: sqs.endpoint, region: 'us-east-1' });
    try {
      await world.command('deploy mysql', (s) => deploy(s, { charm: charms.mysql, numUnits: 1 }));
      await world.command('deploy wordpress', (s) => deploy(s, { charm: charms.wordpress, numUnits: 1 }));
      await world.command('deploy logging', (s) => deploy(s, { charm: charms.logging }));
      await world.converge('deploy');
      const agent = world.agentOf('0')!;
      await world.command('relate wordpress mysql', (s) => addRelation(s, ['wordpress', 'mysql']));
      await world.command('relate wordpress logging', (s) => addRelation(s, ['wordpress', 'logging']));
      await world.tap.drain('changes');
      // The agent that was polling dies holding the hints: received, never deleted.
      const seen = agent.hints.length;
      const taken = await reader.send(
        new ReceiveMessageCommand({ QueueUrl: agent.queueUrl, WaitTimeSeconds: 1, MaxNumberOfMessages: 10, VisibilityTimeout: 2 }),
      );
      const lost = (taken.Messages ?? []).map((m) => m.Body);
      expect(lost.length).toBeGreaterThan(0);
      // The model converges as without the fault (the resync, or the hints once they are due again)...
      await world.converge('relate');
      expect(world.snapshots).toEqual(single.snapshots.slice(0, 2));
      // ...and the hints do come back once their visibility timeout runs out; acting on them then changes nothing.
      const settled = normalisedDump((await world.state()).items, world.controllerId);
      for (let poll = 0; poll < 3 && !lost.every((h) => agent.hints.slice(seen).includes(h!)); poll++) await agent.turn({ waitSeconds: 5 });
      expect(agent.hints.slice(seen)).toEqual(expect.arrayContaining(lost));
      expect(normalisedDump((await world.state()).items, world.controllerId)).toEqual(settled);
      expect([...world.hookRuns].sort()).toEqual([...single.hookRuns].sort());
      expect(world.problems).toEqual([]);
    } finally {
      reader.destroy();
      await world.destroy();
    }
  }, 120_000);
});
