// Juju 3's secrets (https://github.com/juju/juju/tree/3.6/core/secrets): what a secret is, its
// URI, its content's keys, and the one rule of who may read it. Pure: the state layer keeps them
// (shared/state/operations/secrets.ts), the API and the hook tools only call it.
import { invalidArgument } from './errors.js';

/** Who owns a secret: a user's secret is the model's; a charm's is its unit's or its application's. */
export type SecretOwner = { kind: 'model' } | { kind: 'application'; name: string } | { kind: 'unit'; name: string };

/** A grant: the application or unit that may read the secret, and through what (a relation's key, or the model). */
export interface SecretGrant {
  /** `application-<name>` or `unit-<name>`, as Juju's tags. */
  target: string;
  /** `relation-<key>` for a charm's grant over a relation, `model` for a user's grant. */
  scope: string;
  role: 'view' | 'manage';
  /** A grant over a relation: its id, so a relation added again under the same key is not granted. */
  relationId?: number;
  /** An application target's creation time, so an application deployed again under the name is not granted. */
  incarnation?: string;
}

/** Juju's rotation policies (core/secrets/rotate.go). */
export const ROTATE_POLICIES = ['never', 'hourly', 'daily', 'weekly', 'monthly', 'quarterly', 'yearly'] as const;
export type RotatePolicy = (typeof ROTATE_POLICIES)[number];
const ROTATE_INTERVAL_MS: Record<RotatePolicy, number> = {
  never: 0,
  hourly: 3_600_000,
  daily: 86_400_000,
  weekly: 7 * 86_400_000,
  monthly: 30 * 86_400_000,
  quarterly: 90 * 86_400_000,
  yearly: 365 * 86_400_000,
};

/** A secret's metadata: everything but its revisions' content. */
export interface SecretMetadata {
  id: string;
  owner: SecretOwner;
  /** The owner's label (a charm's) or the secret's name (a user's): unique per owner. */
  label?: string;
  description?: string;
  rotatePolicy?: RotatePolicy;
  /** When the owner's leader should rotate it next (ISO time): the secret-rotate schedule, kept in state. */
  nextRotateTime?: string;
  latestRevision: number;
  latestExpireTime?: string;
  /** The latest revision's checksum (sha256 of its content), as Juju 3.6 shows it. */
  latestChecksum?: string;
  /** An application owner's creation time: one deployed again under the name does not own it. */
  ownerIncarnation?: string;
  /** User secrets: revisions no one tracks go at once. */
  autoPrune?: boolean;
  created: string;
  updated: string;
  grants: SecretGrant[];
}

/** One revision: its content, base64-encoded per key as Juju keeps it. */
export interface SecretRevision {
  revision: number;
  content: Record<string, string>;
  checksum: string;
  created: string;
  updated: string;
  expireTime?: string;
}

/** What a consumer unit tracks of a secret it reads (secret-get without --refresh stays on it). */
export interface SecretConsumer {
  unit: string;
  currentRevision: number;
  /**
   * The secret's id and its owner's application, kept so that a change of the tracked revision
   * can tell the owner's units (they run secret-remove for a revision nobody tracks any more).
   */
  secret?: string;
  ownerApplication?: string;
  label?: string;
  /** The latest revision the unit ran secret-changed for (so it runs once per revision, whatever its agent forgets). */
  seenRevision?: number;
}

// An xid is 12 bytes in base32hex, lower case: 20 characters of 0-9a-v (https://github.com/rs/xid).
const XID = /^[0-9a-v]{20}$/;
const BASE32HEX = '0123456789abcdefghijklmnopqrstuv';

/** The 20-character xid of 12 bytes (time, machine, pid, counter: the caller gives them). */
export function encodeXid(bytes: Uint8Array): string {
  if (bytes.length !== 12) throw new Error('an xid is 12 bytes');
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32HEX[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  // 96 bits: 19 full characters and 1 bit left, padded on the right as xid does.
  if (bits > 0) out += BASE32HEX[(value << (5 - bits)) & 31];
  return out;
}

export const secretUri = (id: string) => `secret:${id}`;

/**
 * The secret's id from a URI (`secret:<id>`, `secret://<model-uuid>/<id>`) or a bare id;
 * undefined when it is not one (then it may be a name or label).
 */
export function parseSecretUri(text: string): string | undefined {
  const id = text.startsWith('secret://') ? text.slice(text.lastIndexOf('/') + 1) : text.startsWith('secret:') ? text.slice(7) : text;
  return XID.test(id) ? id : undefined;
}

/** Like parseSecretUri, for where only a URI will do: Juju's error otherwise. */
export function requireSecretUri(text: string): string {
  const id = parseSecretUri(text);
  if (!id) throw invalidArgument(`secret URI "${text}" not valid`);
  return id;
}

// Juju's key rule: lower case, starts with a letter, at least 3 characters, single hyphens between.
const KEY = /^([a-z](?:-?[a-z0-9]){2,})$/;
/** Juju refuses a secret whose content is over 8 KiB (its encoded values). */
export const MAX_SECRET_CONTENT_BYTES = 8 * 1024;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Checks content already base64-encoded per key (as the CLI and the hook tools send it). */
export function checkSecretContent(content: Record<string, string>): Record<string, string> {
  const keys = Object.keys(content);
  if (keys.length === 0) throw invalidArgument('secret content is empty');
  for (const key of keys) {
    if (!KEY.test(key)) throw invalidArgument(`key "${key}" not valid`);
    const value = content[key]!;
    if (value.length % 4 !== 0 || !BASE64.test(value)) throw invalidArgument(`value of key "${key}" is not base64`);
  }
  const size = keys.reduce((n, k) => n + k.length + content[k]!.length, 0);
  if (size > MAX_SECRET_CONTENT_BYTES) throw invalidArgument(`secret content size ${size} exceeds ${MAX_SECRET_CONTENT_BYTES} bytes`);
  return content;
}

/**
 * Juju's `key=value` arguments (core/secrets/createsecret.go): `key#base64=` takes the value as
 * already encoded, anything else is encoded here. `key#file=` is the caller's to read first.
 */
export function secretDataFromPairs(pairs: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [raw, value] of Object.entries(pairs)) {
    const encoded = raw.endsWith('#base64');
    const key = encoded ? raw.slice(0, -'#base64'.length) : raw;
    if (!KEY.test(key)) throw invalidArgument(`key "${key}" not valid`);
    out[key] = encoded ? value : Buffer.from(value, 'utf8').toString('base64');
  }
  return out;
}

/** Splits `key=value` as Juju does: base64 padding at the end is not the separator. */
export function splitSecretArg(arg: string): [string, string] {
  const stripped = arg.replace(/=+$/, '');
  const idx = stripped.indexOf('=');
  if (idx < 1) throw invalidArgument(`key value "${arg}" not valid`);
  return [arg.slice(0, idx), arg.slice(idx + 1)];
}

export const decodeSecretContent = (content: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(content).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));

export function parseRotatePolicy(text: string): RotatePolicy {
  if (!(ROTATE_POLICIES as readonly string[]).includes(text)) throw invalidArgument(`rotate policy "${text}" not valid`);
  return text as RotatePolicy;
}

/**
 * How long after a rotation the charm did not act on (no new revision) secret-rotate runs again:
 * Juju's RotateRetryDelay (https://github.com/juju/juju/blob/3.6/core/secrets/rotate.go).
 */
export const ROTATE_RETRY_DELAY_MS = 5 * 60_000;

/** When a secret rotated (or created) at `from` with `policy` next rotates; undefined for never. */
export function nextRotateTime(policy: RotatePolicy | undefined, from: Date): string | undefined {
  if (!policy || policy === 'never') return undefined;
  return new Date(from.getTime() + ROTATE_INTERVAL_MS[policy]).toISOString();
}

/** Juju's tags for owners and grant targets. */
export function ownerTag(owner: SecretOwner): string {
  return owner.kind === 'model' ? 'model' : `${owner.kind}-${owner.name}`;
}

/** The owner as `juju secrets` shows it: `<model>`, or the application's or unit's name. */
export function ownerDisplay(owner: SecretOwner): string {
  return owner.kind === 'model' ? '<model>' : owner.name;
}

/** `--owner application-foo` / `unit-foo-0` (Juju's tag form) or the bare name. */
export function parseOwnerFilter(text: string): SecretOwner {
  if (text.startsWith('application-')) return { kind: 'application', name: text.slice('application-'.length) };
  const unit = /^unit-(.+)-(\d+)$/.exec(text);
  if (unit) return { kind: 'unit', name: `${unit[1]}/${unit[2]}` };
  throw invalidArgument(`invalid owner "${text}"`);
}

export const sameOwner = (a: SecretOwner, b: SecretOwner) =>
  a.kind === b.kind && (a.kind === 'model' || a.name === (b as { name: string }).name);

/** What a unit may do with a secret: the one rule, used by every route and hook tool. */
export type SecretAccess = 'manage' | 'view' | 'none';

/**
 * A unit's access (https://github.com/juju/juju/blob/3.6/apiserver/facades/agent/secretsmanager/):
 * its own unit-owned secrets, and its application's when it leads, it manages; its application's
 * when it does not lead, it views (Juju lets every unit read the application's secrets); a secret
 * granted to its unit or its application, it views. Anything else: none.
 */
export function unitSecretAccess(secret: Pick<SecretMetadata, 'owner' | 'grants'>, unit: string, isLeader: boolean): SecretAccess {
  const application = unit.split('/')[0]!;
  const owner = secret.owner;
  if (owner.kind === 'unit' && owner.name === unit) return 'manage';
  if (owner.kind === 'application' && owner.name === application) return isLeader ? 'manage' : 'view';
  const targets = new Set([`unit-${unit}`, `application-${application}`]);
  const grant = secret.grants.find((g) => targets.has(g.target));
  return grant ? grant.role : 'none';
}

/** Juju's words when a secret is missing or not the caller's: the same for both, so a refusal tells nothing. */
export const SECRET_ERRORS = {
  notFound: (ref: string) => `secret "${ref}" not found`,
  permissionDenied: 'permission denied',
} as const;
