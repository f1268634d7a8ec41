// Every secret change, for users (the model's secrets) and for units (their hook tools): read,
// plan (shared/domain/plans/secrets.ts), one transaction. A unit's request passes unitSecretAccess
// (shared/domain/secrets.ts) here, the one place that decides what a unit may do with a secret; a
// refusal says "not found", as a missing secret does, so it tells a unit nothing of others' secrets.
import { createHash, randomBytes } from 'node:crypto';
import { DroverError, notFound } from '../../domain/errors.js';
import { planSecretChangeSeen, planSecretRotated } from '../../domain/plans/secret-hooks.js';
import {
  planAddSecret,
  planGrantSecret,
  planRemoveSecret,
  planRevokeSecret,
  planTrackSecret,
  planUpdateSecret,
  type SecretUpdate,
} from '../../domain/plans/secrets.js';
import {
  checkSecretContent,
  encodeXid,
  ownerTag,
  secretUri,
  unitSecretAccess,
  type RotatePolicy,
  type SecretGrant,
  type SecretMetadata,
  type SecretOwner,
} from '../../domain/secrets.js';
import { getApplication } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';
import {
  getSecretConsumer,
  getSecretLabel,
  getSecretRevision,
  listSecretConsumers,
  listSecretRevisions,
  resolveSecret,
  unitLeads,
} from '../queries/secrets.js';

/** A new secret's id: an xid (seconds since the epoch, then 8 random bytes), as Juju's URIs. */
export function newSecretId(now: Date): string {
  const bytes = new Uint8Array(12);
  new DataView(bytes.buffer).setUint32(0, Math.floor(now.getTime() / 1000));
  bytes.set(randomBytes(8), 4);
  return encodeXid(bytes);
}

/** Juju 3.6's checksum of a revision's content: sha256 of its keys and encoded values, in key order. */
export function contentChecksum(content: Record<string, string>): string {
  const sorted = Object.keys(content)
    .sort()
    .map((k) => [k, content[k]]);
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

export interface AddSecretRequest {
  /** The id allocated up front (a hook's secret-add prints its URI before the hook commits); absent: a new one. */
  id?: string;
  owner: SecretOwner;
  ownerIncarnation?: string;
  content: Record<string, string>;
  label?: string;
  description?: string;
  rotatePolicy?: RotatePolicy;
  expireTime?: string;
}

export async function addSecret(store: Store, request: AddSecretRequest): Promise<{ uri: string }> {
  const content = checkSecretContent(request.content);
  const id = request.id ?? newSecretId(store.now());
  return runOperation(store, 'cannot add secret', async (store) => {
    const holder = request.label !== undefined ? await getSecretLabel(store, ownerTag(request.owner), request.label) : undefined;
    return planAddSecret(
      {
        id,
        owner: request.owner,
        ...(request.ownerIncarnation ? { ownerIncarnation: request.ownerIncarnation } : {}),
        content,
        checksum: contentChecksum(content),
        ...(request.label !== undefined ? { label: request.label } : {}),
        ...(request.description !== undefined ? { description: request.description } : {}),
        ...(request.rotatePolicy ? { rotatePolicy: request.rotatePolicy } : {}),
        ...(request.expireTime ? { expireTime: request.expireTime } : {}),
      },
      holder,
      store.now(),
    );
  });
}

export async function updateSecret(store: Store, secret: SecretMetadata, update: SecretUpdate): Promise<{ revision: number }> {
  const content = update.content !== undefined ? checkSecretContent(update.content) : undefined;
  return runOperation(store, `cannot update secret ${secretUri(secret.id)}`, async (store) => {
    const current = await resolveSecret(store, secret.id, []);
    const holder = update.label !== undefined ? await getSecretLabel(store, ownerTag(current.owner), update.label) : undefined;
    return planUpdateSecret(
      current,
      { ...update, ...(content ? { content, checksum: contentChecksum(content) } : {}) },
      holder,
      store.now(),
    );
  });
}

/** Removes a revision, or the whole secret (in batches, for one with more items than a transaction takes). */
export async function removeSecret(store: Store, secret: SecretMetadata, revision?: number): Promise<void> {
  for (;;) {
    const { removed } = await runOperation(store, `cannot remove secret ${secretUri(secret.id)}`, async (store) => {
      const current = await resolveSecret(store, secret.id, []);
      const revisions = (await listSecretRevisions(store, secret.id)).map((r) => r.revision);
      const consumers = await listSecretConsumers(store, secret.id);
      return planRemoveSecret(current, revisions, consumers, revision);
    });
    if (removed || revision !== undefined) return;
  }
}

export async function grantSecret(store: Store, secret: SecretMetadata, grants: SecretGrant[]): Promise<void> {
  await runOperation(store, `cannot grant access to secret ${secretUri(secret.id)}`, async (store) =>
    planGrantSecret(await resolveSecret(store, secret.id, []), grants),
  );
}

export async function revokeSecret(store: Store, secret: SecretMetadata, targets: string[]): Promise<void> {
  await runOperation(store, `cannot revoke access to secret ${secretUri(secret.id)}`, async (store) =>
    planRevokeSecret(await resolveSecret(store, secret.id, []), targets),
  );
}

/** The latest revision's content (base64 per key): for the owner, or a user with --reveal. */
export async function readRevisionContent(store: Store, secret: SecretMetadata, revision = secret.latestRevision) {
  const found = await getSecretRevision(store, secret.id, revision);
  if (!found) throw notFound(`secret revision ${secretUri(secret.id)}/${revision} not found`);
  return found.content;
}

// --- What units do, through their hook tools: every one checked with unitSecretAccess first. ---

/** secret-add: `--owner application` only from the leader, as Juju. */
export async function addUnitSecret(
  store: Store,
  unit: string,
  request: Omit<AddSecretRequest, 'owner'> & { owner: 'unit' | 'application' },
) {
  const application = unit.split('/')[0]!;
  if (request.owner === 'application' && !(await unitLeads(store, unit)))
    throw new DroverError('unauthorized', 'this unit is not the leader');
  const app = await getApplication(store, application);
  if (!app) throw notFound(`application "${application}" not found`);
  const owner: SecretOwner = request.owner === 'application' ? { kind: 'application', name: application } : { kind: 'unit', name: unit };
  return addSecret(store, { ...request, owner, ...(request.owner === 'application' ? { ownerIncarnation: app.createdAt } : {}) });
}

/**
 * secret-get, for a secret secretForUnit found: an owner reads the latest revision; a consumer
 * the revision it tracks (the latest on first read, or with --refresh; --peek reads the latest
 * without tracking it). A label given with a URI names the secret for this consumer from then on.
 */
export async function getUnitSecretContent(
  store: Store,
  unit: string,
  secret: SecretMetadata,
  request: { label?: string; peek?: boolean; refresh?: boolean },
): Promise<{ content: Record<string, string>; revision: number }> {
  // The owner's side (the unit, or any unit of the owning application) reads the latest, tracking nothing.
  const owns = unitSecretAccess({ ...secret, grants: [] }, unit, true) === 'manage';
  if (owns || request.peek) return { content: await readRevisionContent(store, secret), revision: secret.latestRevision };
  const { revision } = await runOperation(store, `cannot read secret ${secretUri(secret.id)}`, async (store) => {
    const current = await resolveSecret(store, secret.id, []);
    const consumer = await getSecretConsumer(store, secret.id, unit);
    const holder = request.label !== undefined ? await getSecretLabel(store, `unit-${unit}`, request.label) : undefined;
    return planTrackSecret(
      current,
      consumer,
      unit,
      { ...(request.refresh ? { refresh: true } : {}), ...(request.label !== undefined ? { label: request.label } : {}) },
      holder,
    );
  });
  return { content: await readRevisionContent(store, secret, revision), revision };
}

/** After secret-rotate: the schedule moves on from the time it ran for (retry-safe: planSecretRotated). */
export async function secretRotated(store: Store, secret: SecretMetadata, ran: { rotateTime: string; originalRevision: number }) {
  return runOperation(store, `cannot rotate secret ${secretUri(secret.id)}`, async (store) =>
    planSecretRotated(await resolveSecret(store, secret.id, []), ran, store.now()),
  );
}

/** After secret-changed: the consumer's record keeps the revision it ran for. */
export async function secretChangeSeen(store: Store, secret: SecretMetadata, unit: string, revision: number): Promise<void> {
  await runOperation(store, `cannot read secret ${secretUri(secret.id)}`, async (store) =>
    planSecretChangeSeen(await resolveSecret(store, secret.id, []), await getSecretConsumer(store, secret.id, unit), revision),
  );
}
