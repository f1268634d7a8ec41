// One stream record → hints to the machines it concerns: the hint step of the `changes` stream
// function (functions/changes/hints.ts), on AWS and in the local controller alike.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Store } from '../state/engine/store.js';
import type { StreamImages } from '../state/engine/stream-record.js';
import { machinesFor } from './affected-machines.js';
import { BatchReads } from './batch-reads.js';
import type { Hint } from './hint.js';
import { planHint } from './hint-plan.js';
import { sendHints, type HintFailure } from './machine-queues.js';

export interface NotifierDeps {
  store: Store;
  sqs: SQSClient;
  controllerId: string;
}

export type NotifyOutcome =
  { kind: 'sent'; hint: Hint; machines: number } | { kind: 'none'; why: string } | { kind: 'malformed'; why: string };

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
 * The hints already sent while handling one batch of records. Every record of a batch was
 * committed before the batch was delivered, so an agent reading after the first hint already
 * sees what later records changed: one hint per machine and entity per batch is enough.
 * Bounded, so a huge fan-out stops remembering instead of growing without limit.
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

export async function notify(
  deps: NotifierDeps,
  images: StreamImages,
  sent = new SentHints(),
  reads = new BatchReads(),
): Promise<NotifyOutcome> {
  const plan = planHint(images);
  if (plan.kind !== 'hint') return plan;
  const failures: HintFailure[] = [];
  let machines = 0;
  const coveredBy = coveringHint(plan.hint, reads);
  const pages = machinesFor(deps.store, plan, reads)[Symbol.asyncIterator]();
  for (let next = pages.next(); ;) {
    const { value: page, done } = await next;
    if (done) break;
    // The next page is read while this one is sent: a large fan-out takes the longer of the two, not their sum.
    next = pages.next();
    next.catch(() => undefined); // a failed read is thrown where it is awaited, not reported as unhandled first
    const targets = sent.unsent(page, plan.hint, coveredBy);
    if (targets.length === 0) continue;
    const result = await sendHints(deps.sqs, deps.controllerId, deps.store.model, targets, plan.hint);
    const failed = new Set(result.failures.map((f) => f.machineId));
    sent.remember(
      targets.filter((m) => !failed.has(m)),
      plan.hint,
    );
    failures.push(...result.failures);
    machines += targets.length - failed.size;
  }
  if (failures.length > 0) throw new HintDeliveryError(failures);
  return { kind: 'sent', hint: plan.hint, machines };
}
