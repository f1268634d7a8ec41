// One stream record → hints to the machines it concerns: the hint step of the `changes` stream
// function (functions/changes/hints.ts), on AWS and in the local controller alike.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Store } from '../state/engine/store.js';
import type { StreamImages } from '../state/engine/stream-record.js';
import { machinesFor } from './affected-machines.js';
import { BatchReads } from './batch-reads.js';
import type { Hint } from './hint.js';
import { planHint, type HintPlan } from './hint-plan.js';
import type { HintOutbox } from './hint-outbox.js';
import type { HintFailure } from './machine-queues.js';

export interface NotifierDeps {
  store: Store;
  sqs: SQSClient;
  controllerId: string;
}

export type NotifyOutcome =
  { kind: 'queued'; hint: Hint; machines: number } | { kind: 'none'; why: string } | { kind: 'malformed'; why: string };

/** Some machines could not be hinted; the record must be retried (the others' duplicates are harmless). */
export class HintDeliveryError extends Error {
  constructor(readonly failures: HintFailure[]) {
    super(
      `could not hint ${failures.length} machine(s): ${failures
        .slice(0, 3)
        .map((f) => `${f.machineId} (${f.error})`)
        .join(', ')}`,
    );
    this.name = 'HintDeliveryError';
  }
}

/**
 * Machine–hint pairs a batch remembers: a relation of 100,000 units in scope is 100,000 pairs for
 * its relation hint, which must stay remembered for the batch's other records of that relation to
 * send nothing (about 10 MB; the changes function has 256 MB).
 */
const MAX_REMEMBERED = 200_000;

/**
 * The hints already sent, or queued to be sent, while handling one batch of records. Every record
 * of a batch was committed before the batch was delivered, so an agent reading after the first
 * hint already sees what later records changed: one hint per machine and entity per batch is
 * enough. Bounded, so a huge fan-out stops remembering instead of growing without limit.
 */
export class SentHints {
  /** Per hint (kind and entity), the machines it was sent to. */
  private readonly sent = new Map<string, Set<string>>();
  private remembered = 0;
  private key = (hint: Hint) => `${hint.kind}\u0000${hint.id}`;
  /** `coveredBy`: a hint that, sent to a machine, already makes its agent read what `hint` names. */
  unsent(machines: string[], hint: Hint, coveredBy?: Hint): string[] {
    const sent = this.sent.get(this.key(hint));
    const covered = coveredBy && this.sent.get(this.key(coveredBy));
    return machines.filter((m) => !sent?.has(m) && !covered?.has(m));
  }
  remember(machines: string[], hint: Hint): void {
    const key = this.key(hint);
    let sent = this.sent.get(key);
    if (!sent) this.sent.set(key, (sent = new Set()));
    for (const m of machines) {
      if (this.remembered >= MAX_REMEMBERED) return;
      if (!sent.has(m)) {
        sent.add(m);
        this.remembered++;
      }
    }
  }
}

/**
 * A unit's settings hint is covered by a hint of its whole relation sent in the same batch: on a
 * relation hint an agent reads every member's settings version (agent/uniter/relation-members.ts),
 * and it reads after every record of the batch was committed. So when 2,000 units enter one
 * relation, each writing its settings in the transaction that enters its scope, the 2,000
 * settings records add no hint to the 2,000 scope records' (which would be N² sends).
 */
function coveringHint(hint: Hint, reads: BatchReads): Hint | undefined {
  if (hint.kind !== 'settings') return undefined;
  const relation = reads.relationWithId(Number(hint.id.split(':')[0]));
  return relation ? { kind: 'relation', id: relation.key } : undefined;
}

/**
 * The machines `images` concerns, queued in `outbox` with its hint on behalf of the batch's record
 * number `record`; the outbox sends them (hint-outbox.ts). A machine the batch already hinted
 * about the same thing is left out (SentHints).
 */
export async function notify(
  store: Store,
  images: StreamImages,
  outbox: HintOutbox,
  record: number,
  sent = new SentHints(),
  reads = new BatchReads(),
): Promise<NotifyOutcome> {
  return notifyPlan(store, planHint(images), outbox, record, sent, reads);
}

/** As notify, for a plan already made (a record's, or its echo in another model: cross-model-echo.ts). */
export async function notifyPlan(
  store: Store,
  plan: HintPlan,
  outbox: HintOutbox,
  record: number,
  sent = new SentHints(),
  reads = new BatchReads(),
): Promise<NotifyOutcome> {
  if (plan.kind !== 'hint') return plan;
  let machines = 0;
  const coveredBy = coveringHint(plan.hint, reads);
  for await (const page of machinesFor(store, plan, reads)) {
    const targets = sent.unsent(page, plan.hint, coveredBy);
    if (targets.length === 0) continue;
    // Remembered as sent now: if the send fails, this record fails and the batch is retried from
    // it, so a later record that skipped these machines is retried too.
    sent.remember(targets, plan.hint);
    await outbox.add(targets, plan.hint, record);
    machines += targets.length;
  }
  return { kind: 'queued', hint: plan.hint, machines };
}
