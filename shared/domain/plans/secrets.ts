// The plans of every secret change (shared/domain/secrets.ts): each one transaction, asserting
// what it read (docs/architecture.md, 'One transaction per change'). The content is only ever in
// a revision item, never in an error or a result.
import { alreadyExists, notFound } from '../errors.js';
import { done, refs, type Change, type Plan } from '../plan.js';
import {
  nextRotateTime,
  ownerTag,
  secretUri,
  type RotatePolicy,
  type SecretConsumer,
  type SecretGrant,
  type SecretMetadata,
  type SecretOwner,
  type SecretRevision,
} from '../secrets.js';

/** User secrets have names, charm secrets labels: Juju's words differ by owner. */
const labelWord = (owner: SecretOwner) => (owner.kind === 'model' ? 'name' : 'label');

export interface NewSecret {
  id: string;
  owner: SecretOwner;
  ownerIncarnation?: string;
  label?: string;
  description?: string;
  rotatePolicy?: RotatePolicy;
  expireTime?: string;
  autoPrune?: boolean;
  /** Base64 per key, already checked (checkSecretContent). */
  content: Record<string, string>;
  checksum: string;
}

/** add-secret / secret-add: the secret, its first revision and its label, or "already exists". */
export function planAddSecret(secret: NewSecret, labelHolder: { id: string } | undefined, now: Date): Plan<{ uri: string }> {
  if (secret.label !== undefined && labelHolder)
    throw alreadyExists(`secret with ${labelWord(secret.owner)} "${secret.label}" already exists`);
  const at = now.toISOString();
  const next = nextRotateTime(secret.rotatePolicy, now);
  const metadata: SecretMetadata = {
    id: secret.id,
    owner: secret.owner,
    latestRevision: 1,
    latestChecksum: secret.checksum,
    created: at,
    updated: at,
    grants: [],
    ...(secret.label !== undefined ? { label: secret.label } : {}),
    ...(secret.description !== undefined ? { description: secret.description } : {}),
    ...(secret.rotatePolicy && secret.rotatePolicy !== 'never' ? { rotatePolicy: secret.rotatePolicy } : {}),
    ...(next ? { nextRotateTime: next } : {}),
    ...(secret.expireTime ? { latestExpireTime: secret.expireTime } : {}),
    ...(secret.autoPrune ? { autoPrune: true } : {}),
    ...(secret.ownerIncarnation ? { ownerIncarnation: secret.ownerIncarnation } : {}),
  };
  const revision: SecretRevision = {
    revision: 1,
    content: secret.content,
    checksum: secret.checksum,
    created: at,
    updated: at,
    ...(secret.expireTime ? { expireTime: secret.expireTime } : {}),
  };
  const changes: Change[] = [
    { op: 'create', ref: refs.secret(secret.id), value: { ...metadata } },
    { op: 'create', ref: refs.secretRevision(secret.id, 1), value: { id: secret.id, ...revision } },
  ];
  if (secret.label !== undefined)
    changes.push({ op: 'create', ref: refs.secretLabel(ownerTag(secret.owner), secret.label), value: { id: secret.id } });
  // The owner's removal will know to take its secrets with it (the ownerSecrets cleanup); the
  // update also asserts the owner still exists.
  if (secret.owner.kind !== 'model') {
    const owner = secret.owner.kind === 'unit' ? refs.unit(secret.owner.name) : refs.application(secret.owner.name);
    changes.push({ op: 'update', ref: owner, set: { ownsSecrets: true } });
  }
  return { changes, result: { uri: secretUri(secret.id) } };
}

export interface SecretUpdate {
  content?: Record<string, string>;
  checksum?: string;
  description?: string;
  label?: string;
  rotatePolicy?: RotatePolicy;
  expireTime?: string;
  autoPrune?: boolean;
}

/**
 * update-secret / secret-set: a new revision when the content differs from the latest (Juju
 * makes none for the same content), and the metadata changed. The latest revision is asserted,
 * so two updates at once make two revisions, one after the other.
 */
export function planUpdateSecret(
  secret: SecretMetadata,
  update: SecretUpdate,
  labelHolder: { id: string } | undefined,
  now: Date,
): Plan<{ revision: number }> {
  const at = now.toISOString();
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  const changes: Change[] = [];
  const newContent = update.content !== undefined && update.checksum !== secret.latestChecksum;
  const revision = newContent ? secret.latestRevision + 1 : secret.latestRevision;
  if (newContent) {
    changes.push({
      op: 'create',
      ref: refs.secretRevision(secret.id, revision),
      value: {
        id: secret.id,
        revision,
        content: update.content,
        checksum: update.checksum,
        created: at,
        updated: at,
        ...(update.expireTime ? { expireTime: update.expireTime } : {}),
      },
    });
    set.latestRevision = revision;
    set.latestChecksum = update.checksum;
    if (update.expireTime) set.latestExpireTime = update.expireTime;
    else if (secret.latestExpireTime) unset.push('latestExpireTime');
  }
  if (update.description !== undefined && update.description !== secret.description) set.description = update.description;
  if (update.autoPrune !== undefined && update.autoPrune !== (secret.autoPrune ?? false)) set.autoPrune = update.autoPrune;
  if (update.rotatePolicy !== undefined && update.rotatePolicy !== (secret.rotatePolicy ?? 'never')) {
    const next = nextRotateTime(update.rotatePolicy, now);
    if (update.rotatePolicy === 'never') unset.push('rotatePolicy', 'nextRotateTime');
    else set.rotatePolicy = update.rotatePolicy;
    if (next) set.nextRotateTime = next;
  }
  if (update.label !== undefined && update.label !== secret.label) {
    if (labelHolder && labelHolder.id !== secret.id)
      throw alreadyExists(`secret with ${labelWord(secret.owner)} "${update.label}" already exists`);
    const tag = ownerTag(secret.owner);
    if (secret.label !== undefined) changes.push({ op: 'remove', ref: refs.secretLabel(tag, secret.label) });
    changes.push({ op: 'create', ref: refs.secretLabel(tag, update.label), value: { id: secret.id } });
    set.label = update.label;
  }
  if (changes.length === 0 && Object.keys(set).length === 0 && unset.length === 0) return done({ revision });
  set.updated = at;
  changes.push({
    op: 'update',
    ref: refs.secret(secret.id),
    set,
    ...(unset.length ? { unset } : {}),
    expect: { equals: { latestRevision: secret.latestRevision } },
  });
  return { changes, result: { revision } };
}

/** The most items one removal's transaction takes (DynamoDB's limit is 100). */
export const MAX_SECRET_ITEMS_PER_REMOVAL = 90;

/**
 * remove-secret / secret-remove: one revision, or the whole secret with its revisions, its
 * consumers and its labels. A secret with more items than one transaction takes loses them in
 * batches: the secret item goes last, so what is left is still found and removed by the next call.
 */
export function planRemoveSecret(
  secret: SecretMetadata,
  revisions: number[],
  consumers: SecretConsumer[],
  revision: number | undefined,
): Plan<{ removed: boolean }> {
  if (revision !== undefined) {
    if (!revisions.includes(revision)) throw notFound(`secret revision ${secretUri(secret.id)}/${revision} not found`);
    if (revisions.length > 1)
      return { changes: [{ op: 'remove', ref: refs.secretRevision(secret.id, revision) }], result: { removed: false } };
  }
  const parts: Change[] = [
    ...revisions.map((r): Change => ({ op: 'remove', ref: refs.secretRevision(secret.id, r) })),
    ...consumers.map((c): Change => ({ op: 'remove', ref: refs.secretConsumer(secret.id, c.unit) })),
    ...consumers
      .filter((c) => c.label !== undefined)
      .map((c): Change => ({ op: 'remove', ref: refs.secretLabel(`unit-${c.unit}`, c.label!) })),
  ];
  if (parts.length + 2 > MAX_SECRET_ITEMS_PER_REMOVAL)
    return { changes: parts.slice(0, MAX_SECRET_ITEMS_PER_REMOVAL), result: { removed: false } };
  const changes = [...parts, { op: 'remove', ref: refs.secret(secret.id) } as Change];
  if (secret.label !== undefined) changes.push({ op: 'remove', ref: refs.secretLabel(ownerTag(secret.owner), secret.label) });
  return { changes, result: { removed: true } };
}

/** grant-secret / secret-grant: adds the targets (a grant already there is kept as it is). */
export function planGrantSecret(secret: SecretMetadata, grants: SecretGrant[]): Plan<Record<string, never>> {
  const added = grants.filter((g) => !secret.grants.some((have) => have.target === g.target));
  if (added.length === 0) return done({});
  return {
    changes: [
      {
        op: 'update',
        ref: refs.secret(secret.id),
        set: { grants: [...secret.grants, ...added] },
        expect: { equals: { latestRevision: secret.latestRevision } },
      },
    ],
    result: {},
  };
}

/** revoke-secret / secret-revoke, and the revocation a removed relation or application carries. */
export function planRevokeSecret(secret: SecretMetadata, targets: string[]): Plan<Record<string, never>> {
  const kept = secret.grants.filter((g) => !targets.includes(g.target));
  if (kept.length === secret.grants.length) return done({});
  return { changes: [revokeChange(secret, kept)], result: {} };
}

/** The change that keeps only `kept` of a secret's grants: for plans that revoke inside a larger transaction. */
export const revokeChange = (secret: SecretMetadata, kept: SecretGrant[]): Change => ({
  op: 'update',
  ref: refs.secret(secret.id),
  set: { grants: kept },
  expect: { equals: { latestRevision: secret.latestRevision } },
});

/**
 * secret-get as a consumer: it starts tracking the latest revision on first read, and moves to the
 * latest with --refresh; a label given names the secret for that unit from then on.
 */
export function planTrackSecret(
  secret: SecretMetadata,
  consumer: SecretConsumer | undefined,
  unit: string,
  options: { refresh?: boolean; label?: string },
  labelHolder: { id: string } | undefined,
): Plan<{ revision: number }> {
  const tracked = consumer && !options.refresh ? consumer.currentRevision : secret.latestRevision;
  const label = options.label ?? consumer?.label;
  if (options.label !== undefined && labelHolder && labelHolder.id !== secret.id)
    throw alreadyExists(`secret with label "${options.label}" already exists`);
  if (consumer && consumer.currentRevision === tracked && consumer.label === label) return done({ revision: tracked });
  const changes: Change[] = [
    {
      op: 'put',
      ref: refs.secretConsumer(secret.id, unit),
      value: {
        unit,
        currentRevision: tracked,
        secret: secret.id,
        ...(secret.owner.kind !== 'model' ? { ownerApplication: secret.owner.name.split('/')[0]! } : {}),
        ...(label !== undefined ? { label } : {}),
      } satisfies SecretConsumer,
    },
  ];
  if (options.label !== undefined && options.label !== consumer?.label) {
    if (consumer?.label !== undefined) changes.push({ op: 'remove', ref: refs.secretLabel(`unit-${unit}`, consumer.label) });
    if (!labelHolder) changes.push({ op: 'create', ref: refs.secretLabel(`unit-${unit}`, options.label), value: { id: secret.id } });
  }
  return { changes, result: { revision: tracked } };
}
