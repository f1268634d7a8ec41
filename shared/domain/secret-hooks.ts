// Which secret hook a unit should run next, from state: the decision of Juju's secrets resolver
// (https://github.com/juju/juju/blob/3.6/worker/uniter/secrets/resolver.go), pure, so the uniter
// asks it between hooks as it asks agent/uniter/decide.ts. In Juju's order: an expired revision
// (secret-expired), a rotation due (secret-rotate), a consumed secret with a newer revision than
// the unit tracks (secret-changed), a revision no one tracks any more (secret-remove). Nothing
// while the unit is not installed, is Dying, or has another operation under way. Every input is
// state the controller keeps (shared/domain/secrets.ts), so the schedules survive any restart;
// `done` is what the unit already ran, kept with its local state.

export type SecretHookKind = 'secret-expired' | 'secret-rotate' | 'secret-changed' | 'secret-remove';

export interface SecretHook {
  kind: SecretHookKind;
  /** JUJU_SECRET_ID. */
  uri: string;
  /** JUJU_SECRET_LABEL, when the owner (or this consumer) gave one. */
  label?: string;
  /** JUJU_SECRET_REVISION: the expired, removable or new revision (none for secret-rotate). */
  revision?: number;
  /**
   * secret-rotate: the nextRotateTime it runs for, and the latest revision when it started: after
   * the hook the controller moves the schedule on from that time, by the policy if the charm made
   * a new revision, else by Juju's retry delay (planSecretRotated).
   */
  rotateTime?: string;
  originalRevision?: number;
}

/** A secret the unit manages: its own, or its application's while it leads. */
export interface OwnedSecretState {
  uri: string;
  label?: string;
  latestRevision: number;
  /** ISO time; absent: never rotates. */
  nextRotateTime?: string;
  revisions: { revision: number; expireTime?: string }[];
  /** The revisions some consumer still tracks. */
  trackedRevisions: number[];
}

/** A secret the unit has read as a consumer. */
export interface ConsumedSecretState {
  uri: string;
  label?: string;
  latestRevision: number;
  /** The revision its consumer record tracks (secret-get without --refresh stays on it). */
  trackedRevision: number;
  /** The latest revision the unit ran secret-changed for, as its consumer record keeps it. */
  seenRevision?: number;
}

/** What state says of a unit's secrets, as the agent API answers `secret-hook-state` (no content). */
export interface UnitSecretHookState {
  owned: OwnedSecretState[];
  consumed: ConsumedSecretState[];
}

/** What the unit already ran for each secret (its local state). */
export interface SecretHooksDone {
  /** uri → the latest revision it ran secret-changed for. */
  changed: Record<string, number>;
  /** `uri/revision` it ran secret-expired for. */
  expired: string[];
  /** `uri/revision` it ran secret-remove for. */
  removed: string[];
  /** uri → the nextRotateTime it ran secret-rotate for (the controller moves it on after). */
  rotated: Record<string, string>;
}

export interface SecretHookInput {
  installed: boolean;
  dying: boolean;
  /** Another operation (a hook, an action) is under way: secrets wait, as in Juju. */
  busy: boolean;
  now: Date;
  owned: OwnedSecretState[];
  consumed: ConsumedSecretState[];
  done: SecretHooksDone;
}

const withLabel = (label: string | undefined) => (label !== undefined ? { label } : {});

export function nextSecretHook(input: SecretHookInput): SecretHook | undefined {
  if (!input.installed || input.dying || input.busy) return undefined;
  const now = input.now.getTime();
  const { done } = input;
  for (const secret of input.owned)
    for (const r of secret.revisions)
      if (r.expireTime && Date.parse(r.expireTime) <= now && !done.expired.includes(`${secret.uri}/${r.revision}`))
        return { kind: 'secret-expired', uri: secret.uri, ...withLabel(secret.label), revision: r.revision };
  for (const secret of input.owned)
    if (secret.nextRotateTime && Date.parse(secret.nextRotateTime) <= now && done.rotated[secret.uri] !== secret.nextRotateTime)
      return {
        kind: 'secret-rotate',
        uri: secret.uri,
        ...withLabel(secret.label),
        rotateTime: secret.nextRotateTime,
        originalRevision: secret.latestRevision,
      };
  for (const secret of input.consumed)
    if (
      secret.trackedRevision !== secret.latestRevision &&
      done.changed[secret.uri] !== secret.latestRevision &&
      secret.seenRevision !== secret.latestRevision
    )
      return { kind: 'secret-changed', uri: secret.uri, ...withLabel(secret.label), revision: secret.latestRevision };
  for (const secret of input.owned)
    for (const r of secret.revisions)
      if (
        r.revision !== secret.latestRevision &&
        !secret.trackedRevisions.includes(r.revision) &&
        !done.removed.includes(`${secret.uri}/${r.revision}`)
      )
        return { kind: 'secret-remove', uri: secret.uri, ...withLabel(secret.label), revision: r.revision };
  return undefined;
}
