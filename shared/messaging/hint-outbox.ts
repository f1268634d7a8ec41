// The hints of one stream batch for one model, gathered per machine and sent together: each
// machine gets one SendMessageBatch with every hint the batch has for it, and many machines are
// sent to at once (machine-queues.ts), while the notifier goes on reading which machines the next
// records concern.
//
// Why not send record by record: a batch of 100 records one after another is 100 round trips in a
// row, and a busy process (the local controller, whose agents share its event loop) answers each
// late; during a big deploy the hints then fell minutes behind the changes they announce.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Hint } from './hint.js';
import { sendHintsEach, type HintFailure, type OnQueueCreated } from './machine-queues.js';

/**
 * Machines gathered before they are sent to: a page of an application's units (affected-machines.ts)
 * is at most this many, so a large fan-out is read a page ahead of its sends, never all at once.
 */
export const SEND_AT_MACHINES = 1000;

interface Pending {
  hints: Hint[];
  /** The first record (its place in the batch) that wanted this machine hinted. */
  record: number;
}

export interface OutboxTarget {
  sqs: SQSClient;
  controllerId: string;
  /** The model's key: its machines' queues are named by it. */
  model: string;
  /** A machine queue a send had to re-create: bind it to its machine's instance. */
  onQueueCreated?: OnQueueCreated;
}

export class HintOutbox {
  private pending = new Map<string, Pending>();
  private sending: Promise<void> = Promise.resolve();
  private readonly failed = new Map<number, HintFailure[]>();

  constructor(private readonly target: OutboxTarget) {}

  /**
   * Queues `hint` for each machine on behalf of the batch's record number `record`. Once enough
   * machines wait, they are sent while the caller reads on; at most one such send runs at a time.
   */
  async add(machines: readonly string[], hint: Hint, record: number): Promise<void> {
    for (const machine of machines) {
      const entry = this.pending.get(machine);
      if (!entry) this.pending.set(machine, { hints: [hint], record });
      else if (!entry.hints.some((h) => h.kind === hint.kind && h.id === hint.id)) entry.hints.push(hint);
    }
    if (this.pending.size >= SEND_AT_MACHINES) {
      await this.sending;
      this.sendPending();
    }
  }

  /**
   * Sends what is left and waits for every send. Returns the machines that could not be hinted,
   * by the first record that wanted each: retrying from that record hints them again.
   */
  async finish(): Promise<Map<number, HintFailure[]>> {
    this.sendPending();
    await this.sending;
    return this.failed;
  }

  private sendPending(): void {
    const batch = this.pending;
    if (batch.size === 0) return;
    this.pending = new Map();
    const { sqs, controllerId, model, onQueueCreated } = this.target;
    const hints = new Map([...batch].map(([machine, entry]) => [machine, entry.hints]));
    // sendHintsEach never throws: a machine it could not hint is returned among the failures.
    this.sending = this.sending
      .then(() => sendHintsEach(sqs, controllerId, model, hints, onQueueCreated ? { onCreated: onQueueCreated } : {}))
      .then(({ failures }) => {
        for (const failure of failures) {
          const record = batch.get(failure.machineId)!.record;
          this.failed.set(record, [...(this.failed.get(record) ?? []), failure]);
        }
      });
  }
}
