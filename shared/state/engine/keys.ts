// Every key and index value of the table is spelled here, and nowhere else.
//
// One table. Each entity is its own partition (pk), so no model lives under one partition key
// and no entity's writes contend with another's. Listings go through the `byCollection` index
// (KEYS_ONLY, written only when an item is created or deleted, never on status updates). The
// `stuck` index is sparse: only entities that are not Alive, or machines in provisioning error,
// carry its keys, for the watchdog. Both indexes are sharded where a collection can be large.
// An application's units and a relation's scope members are sharded as their parent's item says
// (`unitShards`, `scopeShards`: shared/domain/shards.ts, a count that grows with them); without
// it, in the one legacy partition.
import { createHash } from 'node:crypto';
import type { Application, Relation } from '../../domain/entities.js';
import type { EntityRef } from '../../domain/plan.js';
import { applicationOfUnit } from '../../domain/names.js';

export const ATTR = {
  pk: 'pk',
  sk: 'sk',
  // Not 'kind': entities have fields of that name (a cleanup's kind).
  kind: 'entity',
  collectionPk: 'gsi1pk',
  collectionSk: 'gsi1sk',
  stuckPk: 'stuckPk',
  stuckSince: 'stuckSince',
} as const;

export const INDEX = {
  byCollection: 'byCollection',
  stuck: 'stuck',
} as const;

/** Shards of the model-wide collections, so that no index partition takes every write. */
export const MACHINE_SHARDS = 4;
export const STUCK_SHARDS = 8;

const ITEM_SK = 'ITEM';

/** Model names are the controller's: their keys start with no model's key (model names are lower case). */
const CONTROLLER_PREFIX = 'CONTROLLER#';
const MODEL_NAME_PREFIX = `${CONTROLLER_PREFIX}MODEL#`;
const MODEL_NAMES = `${CONTROLLER_PREFIX}MODELS`;
const MODEL_DEFAULTS = `${CONTROLLER_PREFIX}MODELDEFAULTS`;

export interface Key {
  pk: string;
  sk: string;
}

function shardOf(value: string, shards: number): number {
  return createHash('sha1').update(value).digest().readUInt16BE(0) % shards;
}

/** Unit numbers and machine ids sort numerically in the index. */
export const padNumber = (n: number | string) => String(n).padStart(10, '0');

export function keyOf(model: string, ref: EntityRef): Key {
  switch (ref.kind) {
    case 'model':
      return { pk: `${model}#MODEL`, sk: ITEM_SK };
    case 'modelName':
      // The controller's, not a model's: the same key from every model's store.
      return { pk: `${MODEL_NAME_PREFIX}${ref.name}`, sk: ITEM_SK };
    case 'modelDefaults':
      // The controller's too: every model's store reads the same item.
      return { pk: MODEL_DEFAULTS, sk: ITEM_SK };
    case 'application':
      return { pk: `${model}#APP#${ref.name}`, sk: ITEM_SK };
    case 'unit':
      return { pk: `${model}#UNIT#${ref.name}`, sk: ITEM_SK };
    case 'machine':
      return { pk: `${model}#MACHINE#${ref.id}`, sk: ITEM_SK };
    case 'relation':
      return { pk: `${model}#REL#${ref.key}`, sk: ITEM_SK };
    case 'scope':
      // A member lives in its shard of the relation's scope (a Query lists a shard), or in the
      // relation's own partition for a relation added before sharding.
      return { pk: scopePartition(model, ref.relation, ref.shard), sk: `${SCOPE_SK_PREFIX}${ref.unit}` };
    case 'settings':
      // Keyed by relation id, not key: a relation re-added under the same key gets a new id and
      // must not see the old relation's settings (they are deleted later by cleanup).
      return { pk: `${model}#RELDATA#${ref.relationId}`, sk: `UNIT#${ref.unit}` };
    case 'sequence':
      return { pk: `${model}#SEQ#${ref.name}`, sk: ITEM_SK };
    case 'cleanup':
      return { pk: `${model}#CLEANUP#${ref.id}`, sk: ITEM_SK };
    case 'statusLog':
      // An entity's history is one partition, newest last: `show-status-log` is one Query.
      return { pk: statusLogPartition(model, ref.entity), sk: `${ref.at}#${ref.type}` };
    case 'presence':
      // Its own item, never the machine's: a heartbeat must not change what the provisioner and
      // the notifier watch (the machine item), and the stream consumers skip this kind.
      return { pk: `${model}#PRESENCE#${ref.machine}`, sk: ITEM_SK };
    case 'operation':
      return { pk: `${model}#OP#${ref.id}`, sk: ITEM_SK };
    case 'task':
      return { pk: `${model}#TASK#${ref.id}`, sk: ITEM_SK };
    case 'unitState':
      // In the unit's partition but not its item: a hook's state-set must not change the unit
      // item the notifier watches, and the unit's removal deletes both (remove-unit).
      return { pk: `${model}#UNIT#${ref.unit}`, sk: 'STATE' };
    case 'lease':
      // Its own item, never the application's: extending a lease must not look like a change of
      // the application to the notifier, nor contend with config and upgrade transactions.
      return { pk: `${model}#LEASE#${ref.application}`, sk: ITEM_SK };
    case 'leaderSettings':
      return { pk: `${model}#LEADERDATA#${ref.application}`, sk: ITEM_SK };
    case 'modelRevision':
      // Its own partition, never the model item's: operations plan from the model item, and a
      // write of it from outside their transactions would cancel them.
      return { pk: `${model}#REVISION`, sk: ITEM_SK };
    case 'appSettings':
      // Beside the units' settings of the relation, so the relation's "settings" cleanup
      // deletes the application bags with them.
      return { pk: `${model}#RELDATA#${ref.relationId}`, sk: `APP#${ref.application}` };
    case 'offer':
      // The offering model's, named by the ref: a consuming model's transaction reaches it too.
      return { pk: `${ref.model}#OFFER#${ref.name}`, sk: ITEM_SK };
    case 'remoteApplication':
      return { pk: `${model}#SAAS#${ref.name}`, sk: ITEM_SK };
    case 'secret':
      return { pk: `${model}#SECRET#${ref.id}`, sk: ITEM_SK };
    case 'secretRevision':
      // Beside its secret, so the secret's removal finds them with one Query.
      return { pk: `${model}#SECRET#${ref.id}`, sk: `${SECRET_REVISION_SK_PREFIX}${padNumber(ref.revision)}` };
    case 'secretConsumer':
      return { pk: `${model}#SECRET#${ref.id}`, sk: `${SECRET_CONSUMER_SK_PREFIX}${ref.unit}` };
    case 'secretLabel':
      return { pk: `${model}#SECRETLABEL#${ref.owner}#${ref.label}`, sk: ITEM_SK };
    case 'storage':
      return { pk: `${model}#STORAGE#${ref.id}`, sk: ITEM_SK };
    case 'storageAttachment':
      // In its unit's partition, beside the unit's state: the unit's removal finds them there.
      return { pk: `${model}#UNIT#${ref.unit}`, sk: `${STORAGE_ATTACHMENT_SK_PREFIX}${ref.storage}` };
  }
}

export const STORAGE_ATTACHMENT_SK_PREFIX = 'STORAGE#';
export const SECRET_REVISION_SK_PREFIX = 'REV#';
export const SECRET_CONSUMER_SK_PREFIX = 'CONSUMER#';
export const secretPartition = (model: string, id: string) => `${model}#SECRET#${id}`;

/**
 * The lease of a scheduled job (shared/state/operations/run-lease.ts): the controller's, not a
 * model's. It carries no entity kind, so neither stream consumer is ever given its writes, and no
 * index entry, so no listing finds it.
 */
export const RUN_LEASE_PREFIX = `${CONTROLLER_PREFIX}RUN#`;
export const runLeaseKey = (job: string): Key => ({ pk: `${RUN_LEASE_PREFIX}${job}`, sk: ITEM_SK });

/**
 * The byCollection index entry an item gets when created (absent: not listed). `shard`: a unit's
 * among its application's unit partitions (shared/domain/shards.ts), absent for the legacy one.
 */
export function collectionOf(model: string, ref: EntityRef, shard?: number): { pk: string; sk: string } | undefined {
  switch (ref.kind) {
    case 'application':
      return { pk: `${model}#APPS`, sk: ref.name };
    case 'unit': {
      const application = applicationOfUnit(ref.name);
      return { pk: unitPartition(model, application, shard), sk: unitSortKey(ref.name) };
    }
    case 'machine':
      return { pk: machineCollection(model, shardOf(ref.id, MACHINE_SHARDS)), sk: padNumber(ref.id) };
    case 'relation':
      return { pk: `${model}#RELATIONS`, sk: ref.key };
    case 'cleanup':
      return { pk: `${model}#CLEANUPS`, sk: ref.id };
    case 'lease':
      // Listed for the sweep that frees the leases of lost leaders (shared/state/operations/leadership.ts).
      return { pk: `${model}#LEASES`, sk: ref.application };
    // `drover operations` lists them newest first; TTL removes old ones, and their entries with them.
    case 'operation':
      return { pk: `${model}#OPERATIONS`, sk: padNumber(ref.id) };
    case 'modelName':
      return { pk: MODEL_NAMES, sk: ref.name };
    case 'offer':
      return { pk: `${ref.model}#OFFERS`, sk: ref.name };
    case 'remoteApplication':
      return { pk: `${model}#SAAS`, sk: ref.name };
    case 'secret':
      // `secrets` lists them; the cleanup of a removed owner finds its own among them.
      return { pk: `${model}#SECRETS`, sk: ref.id };
    case 'storage':
      // `drover storage` lists them, a model's few in one Query.
      return { pk: `${model}#STORAGE`, sk: ref.id };
    default:
      return undefined;
  }
}

export const collections = {
  /** Every model of the controller, by name, whichever model's store lists them. */
  modelNames: () => MODEL_NAMES,
  applications: (model: string) => `${model}#APPS`,
  offers: (model: string) => `${model}#OFFERS`,
  remoteApplications: (model: string) => `${model}#SAAS`,
  /** The index partitions of an application's units, as its layout says: one unless sharded. */
  unitPartitions: (model: string, application: Pick<Application, 'name' | 'unitShards'>) =>
    application.unitShards
      ? Array.from({ length: application.unitShards }, (_, i) => unitPartition(model, application.name, i))
      : [unitPartition(model, application.name, undefined)],
  relations: (model: string) => `${model}#RELATIONS`,
  cleanups: (model: string) => `${model}#CLEANUPS`,
  leases: (model: string) => `${model}#LEASES`,
  operations: (model: string) => `${model}#OPERATIONS`,
  secrets: (model: string) => `${model}#SECRETS`,
  storage: (model: string) => `${model}#STORAGE`,
  machineShards: (model: string) => Array.from({ length: MACHINE_SHARDS }, (_, i) => machineCollection(model, i)),
  stuckShards: (model: string) => Array.from({ length: STUCK_SHARDS }, (_, i) => `${model}#STUCK#${i}`),
};

const unitPartition = (model: string, application: string, shard: number | undefined) =>
  shard === undefined ? `${model}#APP#${application}#UNITS` : `${model}#APP#${application}#UNITS#${shard}`;

/** A unit's sort key in its application's partitions: its number, so they list in number order. */
export const unitSortKey = (unit: string) => padNumber(unit.split('/')[1] ?? '');

/** The table partitions of a relation's scope members, as its layout says: its own partition unless sharded. */
export const scopePartitions = (model: string, relation: Pick<Relation, 'key' | 'scopeShards'>) =>
  relation.scopeShards
    ? Array.from({ length: relation.scopeShards }, (_, i) => scopePartition(model, relation.key, i))
    : [scopePartition(model, relation.key, undefined)];

const SCOPE_PK_INFIX = '#SCOPE#';
const scopePartition = (model: string, relation: string, shard: number | undefined) =>
  shard === undefined ? `${model}#REL#${relation}` : `${model}#REL#${relation}${SCOPE_PK_INFIX}${shard}`;

function machineCollection(model: string, shard: number) {
  return `${model}#MACHINES#${shard}`;
}

/** The stuck index partition of an entity. */
export function stuckPkOf(model: string, ref: EntityRef): string {
  return `${model}#STUCK#${shardOf(keyOf(model, ref).pk, STUCK_SHARDS)}`;
}

export const statusLogPartition = (model: string, entity: string) => `${model}#STATUSLOG#${entity}`;

/** The prefix of scope members' sort keys, in a scope shard or (legacy) the relation's partition. */
export const SCOPE_SK_PREFIX = 'SCOPE#';
export const SETTINGS_SK_PREFIX = 'UNIT#';
export const settingsPartition = (model: string, relationId: number) => keyOf(model, { kind: 'settings', relationId, unit: '' }).pk;

/**
 * The key of the model an item belongs to, from its partition key (a stream record's `pk`): every
 * model's keys start with the model's key and `#`. Undefined for the controller's own items (model
 * names, under `CONTROLLER#`), which belong to no model, and for a key that is not drover's.
 */
export function modelOfKey(pk: string): string | undefined {
  if (pk.startsWith(CONTROLLER_PREFIX)) return undefined;
  const end = pk.indexOf('#');
  return end > 0 ? pk.slice(0, end) : undefined;
}

/** Recovers the entity reference from an index entry (KEYS_ONLY projections carry pk/sk). */
export function refFromKey(model: string, key: Key): EntityRef | undefined {
  if (key.pk.startsWith(MODEL_NAME_PREFIX) && key.sk === ITEM_SK)
    return { kind: 'modelName', name: key.pk.slice(MODEL_NAME_PREFIX.length) };
  if (!key.pk.startsWith(`${model}#`)) return undefined;
  const rest = key.pk.slice(model.length + 1);
  const [kind, ...parts] = rest.split('#');
  const id = parts.join('#');
  if (key.sk !== ITEM_SK) {
    if (kind === 'REL' && key.sk.startsWith(SCOPE_SK_PREFIX)) {
      // A relation key never holds '#': `<relation>#SCOPE#<shard>` is a sharded member's partition.
      const unit = key.sk.slice(SCOPE_SK_PREFIX.length);
      const [relation, shard] = id.split(SCOPE_PK_INFIX);
      return { kind: 'scope', relation: relation!, unit, ...(shard !== undefined ? { shard: Number(shard) } : {}) };
    }
    return undefined;
  }
  switch (kind) {
    case 'APP':
      return { kind: 'application', name: id };
    case 'UNIT':
      return { kind: 'unit', name: id };
    case 'MACHINE':
      return { kind: 'machine', id };
    case 'REL':
      return { kind: 'relation', key: id };
    case 'CLEANUP':
      return { kind: 'cleanup', id };
    case 'LEASE':
      return { kind: 'lease', application: id };
    case 'MODEL':
      return { kind: 'model' };
    case 'OP':
      return { kind: 'operation', id };
    case 'TASK':
      return { kind: 'task', id };
    case 'OFFER':
      return { kind: 'offer', model, name: id };
    case 'SAAS':
      return { kind: 'remoteApplication', name: id };
    case 'SECRET':
      return { kind: 'secret', id };
    case 'STORAGE':
      return { kind: 'storage', id };
    default:
      return undefined;
  }
}
