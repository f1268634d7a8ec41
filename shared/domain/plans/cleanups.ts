// Cleanup documents: work that cannot be one bounded transaction (all units of a Dying
// application, all settings of a removed relation) or that must wait (force fallbacks). A
// destroy writes the document in its own transaction; the cleanup function (driven by the
// table's stream, locally and on AWS) works through it in bounded batches and deletes it when
// done.
import type { Cleanup, CleanupKind } from '../entities.js';
import { done, refs, type Change, type Plan } from '../plan.js';

/**
 * Ids are derived from what the cleanup is about, so that scheduling one twice is refused by the
 * create's condition rather than doubling the work. `incarnation` tells apart applications
 * deployed again under the same name (their creation time).
 */
export const cleanupId = (kind: CleanupKind, target: string, incarnation?: string) =>
  incarnation ? `${kind}:${target}:${incarnation}` : `${kind}:${target}`;

export function scheduleCleanup(
  kind: CleanupKind,
  target: string,
  now: string,
  options: { incarnation?: string; notBefore?: string } = {},
): Change {
  const cleanup: Cleanup = {
    id: cleanupId(kind, target, options.incarnation),
    kind,
    target,
    createdAt: now,
    ...(options.notBefore ? { notBefore: options.notBefore } : {}),
  };
  return { op: 'create', ref: refs.cleanup(cleanup.id), value: { ...cleanup } };
}

/** A `--force` cleanup, scheduled once: forcing twice is harmless (the second finds it scheduled). */
export function planScheduleForce(
  existing: Cleanup | undefined,
  kind: CleanupKind,
  target: string,
  now: string,
  incarnation?: string,
): Plan<void> {
  if (existing) return done(undefined);
  return { changes: [scheduleCleanup(kind, target, now, incarnation ? { incarnation } : {})], result: undefined };
}
