// Storage of machine charms, as Juju 3.6 models it: a charm declares stores (metadata.yaml
// `storage`, kept as StorageDefinition), an application keeps one directive per store (pool, size,
// count: `deploy --storage`, with defaults from the charm), and each unit gets that many storage
// instances, each attached to the unit. Juju's sources: storage/constraints.go (the directive
// syntax), state/storage.go (the rules), https://github.com/juju/juju/blob/3.6/state/storage.go.
//
// drover supports unshared stores only, so an instance has at most one attachment: the attachment
// is its own item in the unit's partition (its life and the location the agent reported), and the
// instance names its unit in `attachments`, the unit its instances in `storageAttachments`, so the
// rules "a unit is not Dead while attached" and "an instance is not Dead while attached" are
// assertions on set sizes, as the relation rules are.
import type { CharmMeta } from './charm.js';
import { parseSizeMiB, type StorageDefinition } from './charm-checks.js';
import { errorMessage, invalidArgument, notFound } from './errors.js';
import type { Life } from './life.js';

export type { StorageDefinition } from './charm-checks.js';
export { parseSizeMiB } from './charm-checks.js';

export type StorageKind = 'filesystem' | 'block';

/** Which cloud's pools a model has: rootfs everywhere, ebs on AWS. */
export type StorageProvider = 'local' | 'ec2';

/** An application's directive for one store, every field decided (Juju's StorageConstraints). */
export interface StorageDirective {
  pool: string;
  /** MiB. */
  size: number;
  count: number;
}

/** What `--storage name=<constraints>` gives: the fields the user wrote (count 1 when none, as Juju). */
export interface StorageConstraints {
  pool?: string;
  size?: number;
  count: number;
}

export interface StorageVolume {
  volumeId: string;
  device?: string;
  /** The instance it is attached to (an EC2 instance id). */
  attachedTo?: string;
}

export interface StorageInstance {
  /** `<name>/<n>`, n from one model-wide sequence. */
  id: string;
  name: string;
  kind: StorageKind;
  pool: string;
  /** MiB. */
  size: number;
  /** The owner's tag: `unit-mysql-0` (or `application-mysql`). */
  owner: string;
  life: Life;
  /** Outlives its unit (an EBS volume) unless destroyed; rootfs goes with its machine. */
  persistent: boolean;
  volume?: StorageVolume;
  /** The unit attached to it (at most one: drover has no shared storage). */
  attachments: string[];
  /** The charm's `location` for the store (the parent directory when there may be several). */
  location?: string;
  readOnly?: boolean;
  /** remove-storage --no-destroy: once Dead, its volume is left in the cloud, only the record goes. */
  release?: boolean;
  createdAt: string;
}

export interface StorageAttachment {
  storage: string;
  unit: string;
  /** The unit's machine, so the notifier hints it without reading the unit. */
  machine?: string;
  life: Life;
  /** Where the agent made it available, once it said so (storage-attached). */
  location?: string;
}

/**
 * One of a unit's storage attachments as its agent reads it in its view (each unit's `storage`):
 * the storage contract's shape, shared by the API (shared/state/queries/machine-view.ts) and the agent.
 */
export interface UnitStorageView {
  id: string;
  name: string;
  kind: StorageKind;
  pool: string;
  /** MiB. */
  size: number;
  /** The attachment's life: Dying tells the agent to run -storage-detaching, then storage-detached. */
  life: Life;
  /** Where the agent made it available (storage-attached), once it said so. */
  location?: string;
  volume?: { volumeId: string; device?: string };
}

/** A storage pool: its name and the provider behind it (Juju's `storage-pools`). */
export interface StoragePool {
  name: string;
  provider: string;
  kinds: StorageKind[];
  persistent: boolean;
  /** Whether detach-storage may take it from its unit (rootfs is the machine's own disk). */
  detachable: boolean;
}

const ROOTFS: StoragePool = { name: 'rootfs', provider: 'rootfs', kinds: ['filesystem'], persistent: false, detachable: false };
const EBS: StoragePool = { name: 'ebs', provider: 'ebs', kinds: ['filesystem', 'block'], persistent: true, detachable: true };

/** The pools of a model on `provider`, in name order. */
export const storagePools = (provider: StorageProvider): StoragePool[] => (provider === 'ec2' ? [EBS, ROOTFS] : [ROOTFS]);

/** A pool by name, whatever the provider (for instances made in it already); undefined if drover has none of the name. */
export const knownPool = (name: string): StoragePool | undefined => [EBS, ROOTFS].find((p) => p.name === name);

export function storagePool(provider: StorageProvider, name: string): StoragePool {
  const pool = storagePools(provider).find((p) => p.name === name);
  if (!pool) throw notFound(`pool ${JSON.stringify(name)} not found`);
  return pool;
}

/** Juju's default storage size when neither the user nor the charm gives one: 1 GiB. */
export const DEFAULT_STORAGE_SIZE = 1024;

// ---- Juju's storage constraints syntax (storage/constraints.go ParseConstraints) -------------

const POOL = /^[a-zA-Z]+[-?a-zA-Z0-9]*$/;
const COUNT = /^-?[0-9]+$/;
const SIZE = /^-?[0-9]+(?:\.[0-9]+)?[MGTPEZY](?:i?B)?$/;

/** `POOL,COUNT,SIZE` in any order, any subset, as Juju's ParseConstraints reads it. */
export function parseStorageConstraints(text: string): StorageConstraints {
  let pool: string | undefined;
  let size: number | undefined;
  let count = 0;
  for (const field of text.split(',')) {
    if (field === '') continue;
    if (POOL.test(field)) {
      if (pool !== undefined) {
        throw invalidArgument(`pool name is already set to ${JSON.stringify(pool)}, new value ${JSON.stringify(field)} not valid`);
      }
      pool = field;
    } else if (COUNT.test(field)) {
      const n = Number(field);
      if (field.startsWith('-') || n <= 0 || !Number.isSafeInteger(n)) {
        throw invalidArgument(`cannot parse count: count must be greater than zero, got ${JSON.stringify(field)}`);
      }
      count = n;
    } else if (SIZE.test(field)) {
      const parsed = parseSizeMiB(field);
      if (typeof parsed === 'string') throw invalidArgument(`cannot parse size: ${parsed}`);
      size = parsed;
    } else {
      throw invalidArgument(`unrecognized storage constraint ${JSON.stringify(field)} not valid`);
    }
  }
  if (count === 0 && size === undefined && pool === undefined) {
    throw invalidArgument('storage constraints require at least one field to be specified');
  }
  return { ...(pool !== undefined ? { pool } : {}), ...(size !== undefined ? { size } : {}), count: count || 1 };
}

/** deploy's `--storage <store>=<constraints>` (cmd/juju/application/flags.go storageFlag). */
export function parseStorageFlag(value: string): [string, string] {
  const at = value.indexOf('=');
  if (at < 0 || value.slice(0, at).includes(':')) throw invalidArgument('expected <store>=<constraints>');
  return [value.slice(0, at), value.slice(at + 1)];
}

/** deploy's `--storage` values, each parsed: `cannot parse disk constraints: ...` as Juju says. */
export function parseStorageFlags(values: Record<string, string>): Record<string, StorageConstraints> {
  const parsed: Record<string, StorageConstraints> = {};
  for (const [name, text] of Object.entries(values)) {
    try {
      parsed[name] = parseStorageConstraints(text);
    } catch (e) {
      throw invalidArgument(`cannot parse disk constraints: ${errorMessage(e)}`);
    }
  }
  return parsed;
}

// ---- directives: the user's constraints, the charm's defaults, Juju's checks ----------------

/** Bytes in Juju's humanize.Bytes words (SI units): `1.0 GB`, `100 MB`. */
export function humanizeMiB(mib: number): string {
  const bytes = mib * 1_000_000;
  if (bytes < 10) return `${bytes} B`;
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];
  const exponent = Math.min(Math.floor(Math.log(bytes) / Math.log(1000)), units.length - 1);
  const value = Math.floor((bytes / 1000 ** exponent) * 10 + 0.5) / 10;
  return `${value < 10 ? value.toFixed(1) : value.toFixed(0)} ${units[exponent]}`;
}

function countError(definition: StorageDefinition, count: number): string | undefined {
  if (definition.countMin === 1 && definition.countMax === 1 && count !== 1) return `storage is singular, ${count} specified`;
  if (count < definition.countMin) return `${definition.countMin} instances required, ${count} specified`;
  if (definition.countMax >= 0 && count > definition.countMax)
    return `at most ${definition.countMax} instances supported, ${count} specified`;
  return undefined;
}

/** The default pool of a store of `kind`: rootfs for filesystems; ebs for blocks on AWS; none for blocks locally. */
function defaultPool(provider: StorageProvider, kind: StorageKind): string {
  if (kind === 'filesystem') return ROOTFS.name;
  if (provider === 'ec2') return EBS.name;
  throw invalidArgument(
    'block storage is not supported on the local provider: it has no loop devices and no volumes; deploy to an AWS controller for "ebs" block storage',
  );
}

function checkPool(provider: StorageProvider, poolName: string, kind: StorageKind): StoragePool {
  const pool = storagePool(provider, poolName);
  if (!pool.kinds.includes(kind)) throw invalidArgument(`"${pool.provider}" provider does not support "${kind}" storage`);
  return pool;
}

/**
 * The application's directives: for every store of the charm, what the user asked merged with the
 * charm's defaults (count: the minimum; size: minimum-size or 1 GiB; pool: the kind's default),
 * checked as Juju checks them (state/storage.go validateStorageConstraintsAgainstCharm). A store
 * with a minimum of 0 the user did not ask for gets a directive of count 0.
 */
export function storageDirectives(
  charm: Pick<CharmMeta, 'name' | 'storage'>,
  requested: Record<string, StorageConstraints>,
  provider: StorageProvider,
): Record<string, StorageDirective> {
  const stores = charm.storage ?? {};
  for (const name of Object.keys(requested)) {
    if (!Object.hasOwn(stores, name)) throw invalidArgument(`charm "${charm.name}" has no store called "${name}"`);
  }
  const directives: Record<string, StorageDirective> = {};
  for (const [name, definition] of Object.entries(stores)) {
    const asked = Object.hasOwn(requested, name) ? requested[name] : undefined;
    const store = `charm "${charm.name}" store "${name}"`;
    if (definition.shared) {
      if (asked) throw invalidArgument(`${store}: shared storage support not implemented`);
      continue;
    }
    const count = asked?.count ?? definition.countMin;
    const size = asked?.size ?? (definition.minimumSize || DEFAULT_STORAGE_SIZE);
    const wrongCount = countError(definition, count);
    if (wrongCount) throw invalidArgument(`${store}: ${wrongCount}`);
    if (definition.minimumSize > 0 && size < definition.minimumSize) {
      throw invalidArgument(`${store}: minimum storage size is ${humanizeMiB(definition.minimumSize)}, ${humanizeMiB(size)} specified`);
    }
    // A store the charm may go without costs nothing until asked for: its pool is checked then.
    if (count === 0) {
      directives[name] = { pool: asked?.pool ?? (definition.type === 'filesystem' ? ROOTFS.name : ''), size, count };
      continue;
    }
    const pool = asked?.pool ?? defaultPool(provider, definition.type);
    checkPool(provider, pool, definition.type);
    directives[name] = { pool, size, count };
  }
  return directives;
}

/**
 * add-storage / storage-add: `count` more instances of one store for a unit that has `current`,
 * the application's directive giving what the user left out. Juju's words
 * (state/storage.go validateCharmStorageCountChange, addStorageForUnitOps).
 */
export function addStorageDirective(
  charm: Pick<CharmMeta, 'name' | 'storage'>,
  name: string,
  asked: StorageConstraints,
  current: number,
  applicationDirective: StorageDirective | undefined,
  provider: StorageProvider,
): StorageDirective {
  const definition = charm.storage && Object.hasOwn(charm.storage, name) ? charm.storage[name] : undefined;
  if (!definition) throw notFound(`charm storage ${JSON.stringify(name)} not found`);
  if (definition.shared) throw invalidArgument(`charm "${charm.name}" store "${name}": shared storage support not implemented`);
  const total = current + asked.count;
  if (definition.countMin === 1 && definition.countMax === 1 && total !== 1) {
    throw invalidArgument(`adding ${JSON.stringify(name)} storage to unit: cannot attach, storage is singular`);
  }
  if (definition.countMax >= 0 && total > definition.countMax) {
    const plural = asked.count === 1 ? '' : 's';
    throw invalidArgument(
      `adding ${JSON.stringify(name)} storage to unit: attaching ${asked.count} storage instance${plural} brings the total to ${total}, exceeding the maximum of ${definition.countMax}`,
    );
  }
  const size = asked.size ?? applicationDirective?.size ?? (definition.minimumSize || DEFAULT_STORAGE_SIZE);
  if (definition.minimumSize > 0 && size < definition.minimumSize) {
    throw invalidArgument(
      `charm "${charm.name}" store "${name}": minimum storage size is ${humanizeMiB(definition.minimumSize)}, ${humanizeMiB(size)} specified`,
    );
  }
  const pool = asked.pool ?? (applicationDirective?.pool || defaultPool(provider, definition.type));
  checkPool(provider, pool, definition.type);
  return { pool, size, count: asked.count };
}

/** The storage tag Juju shows and hook tools take: `data/0` → `storage-data-0`. */
export const storageTag = (id: string) => `storage-${id.replace('/', '-')}`;

/** `data-0` or `storage-data-0` (as a user may type it) → `data/0`; undefined when it is not a storage id. */
export function storageIdOf(text: string): string | undefined {
  if (/^[a-z][a-z0-9]*(-[a-z][a-z0-9]*)*\/\d+$/.test(text)) return text;
  const tag = /^(?:storage-)?([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*)-(\d+)$/.exec(text);
  return tag ? `${tag[1]}/${tag[2]}` : undefined;
}

export const unitTag = (unit: string) => `unit-${unit.replace('/', '-')}`;
