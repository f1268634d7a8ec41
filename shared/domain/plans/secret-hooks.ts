// The plans of what the secret hooks leave behind (shared/domain/secret-hooks.ts decides which
// hook runs): after secret-rotate the schedule moves on; after secret-changed the consumer's
// record notes the revision it ran for. Each is retry-safe: it names what it ran for, and a plan
// that finds the item already past that changes nothing.
import { done, refs, type Plan } from '../plan.js';
import { nextRotateTime, ROTATE_RETRY_DELAY_MS, type SecretConsumer, type SecretMetadata } from '../secrets.js';

/**
 * After secret-rotate ran for `rotateTime` (the nextRotateTime it was due at), as Juju's
 * SecretRotated (https://github.com/juju/juju/blob/3.6/domain/secret/service/service.go): the
 * next time is the policy's interval after the due time; if the charm made no new revision during
 * the hook, or the latest revision expires before then, it runs again after the retry delay.
 */
export function planSecretRotated(
  secret: SecretMetadata,
  ran: { rotateTime: string; originalRevision: number },
  now: Date,
): Plan<{ nextRotateTime?: string }> {
  const current = secret.nextRotateTime !== undefined ? { nextRotateTime: secret.nextRotateTime } : {};
  // Rotation turned off meanwhile, or another run already moved the schedule on.
  if (!secret.rotatePolicy || secret.rotatePolicy === 'never' || secret.nextRotateTime !== ran.rotateTime) return done(current);
  const last = secret.nextRotateTime !== undefined ? new Date(secret.nextRotateTime) : now;
  let next = nextRotateTime(secret.rotatePolicy, last)!;
  const forced = new Date(last.getTime() + ROTATE_RETRY_DELAY_MS).toISOString();
  const expiresFirst = secret.latestExpireTime !== undefined && Date.parse(secret.latestExpireTime) < Date.parse(next);
  if ((expiresFirst && Date.parse(forced) < Date.parse(secret.latestExpireTime!)) || secret.latestRevision === ran.originalRevision)
    next = forced;
  return {
    changes: [
      {
        op: 'update',
        ref: refs.secret(secret.id),
        set: { nextRotateTime: next },
        expect: { equals: { nextRotateTime: ran.rotateTime } },
      },
    ],
    result: { nextRotateTime: next },
  };
}

/** After secret-changed ran for `revision`: the consumer's record keeps it (a lower one never replaces it). */
export function planSecretChangeSeen(secret: SecretMetadata, consumer: SecretConsumer | undefined, revision: number): Plan<object> {
  if (!consumer || (consumer.seenRevision ?? 0) >= revision || revision > secret.latestRevision) return done({});
  return {
    changes: [
      {
        op: 'update',
        ref: refs.secretConsumer(secret.id, consumer.unit),
        set: { seenRevision: revision },
        expect: { equals: { currentRevision: consumer.currentRevision } },
      },
    ],
    result: {},
  };
}
