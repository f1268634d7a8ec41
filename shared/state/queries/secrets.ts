// Secrets as they are read (shared/domain/secrets.ts): a secret by URI or label, its revisions and
// consumers (its partition, one Query), the model's secrets (the byCollection index). Nothing
// here decides who may read them: shared/state/operations/secrets.ts asks unitSecretAccess first.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { DroverError, notFound } from '../../domain/errors.js';
import type { Application, Relation } from '../../domain/entities.js';
import { isExpired, type Lease } from '../../domain/leadership.js';
import { refs } from '../../domain/plan.js';
import {
  parseSecretUri,
  SECRET_ERRORS,
  unitSecretAccess,
  type SecretAccess,
  type SecretConsumer,
  type SecretGrant,
  type SecretMetadata,
  type SecretRevision,
} from '../../domain/secrets.js';
import { fromItem } from '../engine/codec.js';
import { collections, SECRET_CONSUMER_SK_PREFIX, SECRET_REVISION_SK_PREFIX, secretPartition } from '../engine/keys.js';
import { getApplication, getItem, getMany, getRelation, listAll } from '../engine/reads.js';
import type { Store } from '../engine/store.js';

export const getSecret = (store: Store, id: string) => getItem<SecretMetadata>(store, refs.secret(id));

export const getSecretRevision = (store: Store, id: string, revision: number) =>
  getItem<SecretRevision & { id: string }>(store, refs.secretRevision(id, revision));

export const getSecretConsumer = (store: Store, id: string, unit: string) => getItem<SecretConsumer>(store, refs.secretConsumer(id, unit));

/** The secret a label names for an owner or consumer tag (`model`, `application-x`, `unit-x/0`). */
export const getSecretLabel = (store: Store, owner: string, label: string) =>
  getItem<{ id: string }>(store, refs.secretLabel(owner, label));

async function queryPartition<T>(store: Store, id: string, prefix: string): Promise<T[]> {
  const items: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await store.doc.send(
      new QueryCommand({
        TableName: store.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': secretPartition(store.model, id), ':prefix': prefix },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []).map((i) => fromItem<T>(i)));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** A secret's revisions, oldest first (their sort keys are padded numbers). */
export const listSecretRevisions = (store: Store, id: string) => queryPartition<SecretRevision>(store, id, SECRET_REVISION_SK_PREFIX);

export const listSecretConsumers = (store: Store, id: string) => queryPartition<SecretConsumer>(store, id, SECRET_CONSUMER_SK_PREFIX);

/** Every secret of the model (a model holds few: they are listed whole, as Juju lists them). */
export async function listSecrets(store: Store): Promise<SecretMetadata[]> {
  const found = await listAll(store, collections.secrets(store.model));
  return getMany<SecretMetadata>(store, found);
}

/**
 * The secret `ref` names: a URI (or bare id), else a label among `owners`' labels, first found.
 * Missing: Juju's `secret "<ref>" not found`.
 */
export async function resolveSecret(store: Store, ref: string, owners: string[]): Promise<SecretMetadata> {
  const byUri = parseSecretUri(ref);
  let id = byUri;
  if (!id) {
    for (const owner of owners) {
      id = (await getSecretLabel(store, owner, ref))?.id;
      if (id) break;
    }
  }
  const secret = id ? await getSecret(store, id) : undefined;
  if (!secret) throw notFound(SECRET_ERRORS.notFound(ref));
  return secret;
}

/** Whether `unit` holds its application's lease now: the leader manages the application's secrets. */
export async function unitLeads(store: Store, unit: string): Promise<boolean> {
  const lease = await getItem<Lease>(store, refs.lease(unit.split('/')[0]!));
  return lease?.holder === unit && !isExpired(lease, store.now());
}

/** The labels a unit may name a secret by: its own (as owner or consumer) and its application's. */
const unitLabelOwners = (unit: string) => [`unit-${unit}`, `application-${unit.split('/')[0]!}`];

/**
 * The secret `ref` (URI or label) names for `unit`, with the access the unit has: the one check
 * of what a unit may do with a secret (functions/api/agent-authorization.ts calls it for every
 * agent route that names one). Missing: Juju's "not found"; neither owned nor granted, or only
 * viewed where `needs` is manage: Juju's "permission denied".
 */
export async function secretForUnit(
  store: Store,
  unit: string,
  ref: string,
  needs: Exclude<SecretAccess, 'none'>,
): Promise<{ secret: SecretMetadata; access: SecretAccess }> {
  const secret = await resolveSecret(store, ref, unitLabelOwners(unit));
  const access = unitSecretAccess(await inForce(store, secret), unit, await unitLeads(store, unit));
  if (access === 'none' || (needs === 'manage' && access !== 'manage'))
    throw new DroverError('unauthorized', SECRET_ERRORS.permissionDenied);
  return { secret, access };
}

/**
 * The secret as it stands for access: without its owner once the owning application is gone (one
 * deployed again under the name owns nothing of the old one's), and without the grants whose
 * relation or application is gone. So removing a relation or an application revokes its grants
 * in the very transaction that removes it, whatever is left in the secret's item.
 */
export async function inForce(store: Store, secret: SecretMetadata): Promise<SecretMetadata> {
  const relations = new Map<string, Relation | undefined>();
  const applications = new Map<string, Application | undefined>();
  const application = async (name: string) => {
    if (!applications.has(name)) applications.set(name, await getApplication(store, name));
    return applications.get(name);
  };
  const grants: SecretGrant[] = [];
  for (const grant of secret.grants) {
    if (grant.relationId !== undefined) {
      const key = grant.scope.slice('relation-'.length);
      if (!relations.has(key)) relations.set(key, await getRelation(store, key));
      if (relations.get(key)?.id !== grant.relationId) continue;
    }
    if (grant.incarnation !== undefined && (await application(grant.target.slice('application-'.length)))?.createdAt !== grant.incarnation)
      continue;
    grants.push(grant);
  }
  const owned =
    secret.owner.kind !== 'application' || secret.ownerIncarnation === undefined
      ? true
      : (await application(secret.owner.name))?.createdAt === secret.ownerIncarnation;
  // An orphan belongs to no unit: the model stands for "nobody" here.
  return { ...secret, grants, ...(owned ? {} : { owner: { kind: 'model' } as const }) };
}
