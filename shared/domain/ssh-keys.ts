// A model's SSH keys, as Juju 3.6 keeps them: its `authorized-keys` model config, one OpenSSH
// authorized_keys line per key (https://github.com/juju/juju/blob/3.6/apiserver/facades/client/keymanager/keymanager.go).
// A key is valid when it parses as an authorized_keys line (optional options, a key type, the
// base64 key whose own type matches, an optional comment); it is named by the MD5 fingerprint
// Juju 3.6 prints (`86:ed:1b:...`, juju/utils' ssh.KeyFingerprint) or by its comment.
import { createHash } from 'node:crypto';

export const AUTHORIZED_KEYS = 'authorized-keys';

/** The comments of Juju's own keys, which a user may neither add nor remove. */
const INTERNAL_COMMENTS = new Set(['juju-client-key', 'juju-system-key']);

/** What the agents mark the keys they install with, so they replace only their own (Juju's ssh.JujuCommentPrefix). */
export const JUJU_COMMENT_PREFIX = 'Juju:';

export interface AuthorizedKey {
  type: string;
  /** The key in SSH's wire format (the base64 field, decoded). */
  blob: Buffer;
  comment: string;
}

/** The number of length-prefixed fields each plain key type's wire format holds (RFC 4253, 5656, 8709; OpenSSH's PROTOCOL.u2f). */
const KEY_FIELDS: Record<string, number> = {
  'ssh-rsa': 3,
  'ssh-dss': 5,
  'ecdsa-sha2-nistp256': 3,
  'ecdsa-sha2-nistp384': 3,
  'ecdsa-sha2-nistp521': 3,
  'ssh-ed25519': 2,
  'sk-ecdsa-sha2-nistp256@openssh.com': 4,
  'sk-ssh-ed25519@openssh.com': 3,
};
const CERT_SUFFIX = '-cert-v01@openssh.com';

const isKeyType = (type: string) =>
  Object.hasOwn(KEY_FIELDS, type) || (type.endsWith(CERT_SUFFIX) && Object.hasOwn(KEY_FIELDS, type.slice(0, -CERT_SUFFIX.length) || '-'));

/** The wire format's length-prefixed strings, or undefined when the bytes are not exactly that. */
function wireFields(blob: Buffer): Buffer[] | undefined {
  const fields: Buffer[] = [];
  let at = 0;
  while (at < blob.length) {
    if (at + 4 > blob.length) return undefined;
    const length = blob.readUInt32BE(at);
    if (at + 4 + length > blob.length) return undefined;
    fields.push(blob.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return fields;
}

function validBlob(type: string, blob: Buffer): boolean {
  if (type.endsWith(CERT_SUFFIX)) {
    // A certificate holds more than its key; its first field names its type, as any key's does.
    if (blob.length < 4) return false;
    const length = blob.readUInt32BE(0);
    return blob.length >= 4 + length && blob.subarray(4, 4 + length).toString('latin1') === type;
  }
  const fields = wireFields(blob);
  return fields !== undefined && fields.length === KEY_FIELDS[type] && fields[0]!.toString('latin1') === type;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** `<type> <base64> [comment]`, or undefined. */
function parseKeyPart(text: string): AuthorizedKey | undefined {
  const match = /^(\S+)\s+(\S+)\s*(.*)$/.exec(text);
  if (!match) return undefined;
  const [, type, encoded, comment] = match as unknown as [string, string, string, string];
  if (!isKeyType(type) || !BASE64.test(encoded)) return undefined;
  const blob = Buffer.from(encoded, 'base64');
  if (blob.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) return undefined;
  return validBlob(type, blob) ? { type, blob, comment: comment.trim() } : undefined;
}

/** The options field before the key (`from="a,b",no-pty`), quotes included; the rest of the line. */
function afterOptions(line: string): string | undefined {
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\' && quoted) i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && (c === ' ' || c === '\t')) return line.slice(i).trim();
  }
  return undefined;
}

/** One authorized_keys line as OpenSSH (and Go's ssh.ParseAuthorizedKey) reads it; undefined when it is no key. */
export function parseAuthorizedKey(line: string): AuthorizedKey | undefined {
  if (line.includes('\n')) return undefined;
  const text = line.trim();
  if (text === '' || text.startsWith('#')) return undefined;
  const plain = parseKeyPart(text);
  if (plain) return plain;
  const rest = afterOptions(text);
  return rest === undefined ? undefined : parseKeyPart(rest);
}

/** Juju 3.6's fingerprint: the MD5 of the key's wire format, colon-separated lowercase hex. */
export function keyFingerprint(key: AuthorizedKey): string {
  return createHash('md5').update(key.blob).digest('hex').match(/../g)!.join(':');
}

/** The keys in an authorized-keys value: its lines, blank lines and `#` comments left out (Juju's SplitAuthorisedKeys). */
export function splitAuthorizedKeys(value: string | undefined): string[] {
  return (value ?? '')
    .split('\n')
    .map((line) => line.replace(/^[ \r]+|[ \r]+$/g, ''))
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** `ssh-keys`: each key's fingerprint and comment, or with `full` the keys themselves (Juju's parseKeys). */
export function listKeys(value: string | undefined, full: boolean): string[] {
  const out: string[] = [];
  for (const line of splitAuthorizedKeys(value)) {
    const key = parseAuthorizedKey(line);
    if (!key) {
      out.push(`Invalid key: ${line}`);
      continue;
    }
    if (INTERNAL_COMMENTS.has(key.comment)) continue;
    out.push(full ? line : key.comment ? `${keyFingerprint(key)} (${key.comment})` : keyFingerprint(key));
  }
  return out;
}

export interface KeyChange {
  /** The model's keys after the change, newline-joined. */
  value: string;
  /** Per key or id asked for, in order: the error in Juju's words, or null when it was done. */
  errors: (string | null)[];
}

/** add-ssh-key: Juju's AddKeys, key by key: an invalid, internal or duplicate key is refused, the others added. */
export function addKeys(value: string | undefined, keys: string[]): KeyChange {
  const current = splitAuthorizedKeys(value);
  const fingerprints = new Set(current.flatMap((line) => parseKeyFingerprint(line)));
  const errors = keys.map((line) => {
    const key = parseAuthorizedKey(line);
    if (!key) return `invalid ssh key: ${line}`;
    if (INTERNAL_COMMENTS.has(key.comment)) return `may not add key with comment ${key.comment}: ${line}`;
    const fingerprint = keyFingerprint(key);
    if (fingerprints.has(fingerprint)) return `duplicate ssh key: ${line}`;
    fingerprints.add(fingerprint);
    current.push(line.trim());
    return null;
  });
  return { value: current.join('\n'), errors };
}

const parseKeyFingerprint = (line: string): string[] => {
  const key = parseAuthorizedKey(line);
  return key ? [keyFingerprint(key)] : [];
};

/**
 * remove-ssh-key: Juju's DeleteKeys, by fingerprint, comment or the key itself. Unlike Juju, the
 * last key may go: a drover model holds no key of the controller's own (Juju's juju-client-key),
 * which is what keeps Juju's list from ever being emptied by a user.
 */
export function removeKeys(value: string | undefined, ids: string[]): KeyChange {
  const current = splitAuthorizedKeys(value);
  const byFingerprint = new Map<string, string>();
  const byComment = new Map<string, string>();
  for (const line of current) {
    const key = parseAuthorizedKey(line);
    if (!key) continue;
    byFingerprint.set(keyFingerprint(key), line);
    if (key.comment) byComment.set(key.comment, line);
  }
  const removed = new Set<string>();
  const errors = ids.map((id) => {
    const byPrint = byFingerprint.get(id) ?? (current.includes(id.trim()) ? id.trim() : undefined);
    if (byPrint !== undefined) {
      removed.add(byPrint);
      return null;
    }
    const byText = byComment.get(id);
    if (byText === undefined) return `invalid ssh key: ${id}`;
    if (INTERNAL_COMMENTS.has(id)) return `may not delete internal key: ${id}`;
    removed.add(byText);
    return null;
  });
  return { value: current.filter((line) => !removed.has(line)).join('\n'), errors };
}

/** A key as the agents write it into authorized_keys: its comment marked as Juju's (Juju's EnsureJujuComment). */
export function withJujuComment(line: string): string {
  const key = parseAuthorizedKey(line);
  if (!key) return line;
  if (key.comment === '') return `${line.trim()} ${JUJU_COMMENT_PREFIX}sshkey`;
  if (key.comment.startsWith(JUJU_COMMENT_PREFIX)) return line.trim();
  const text = line.trim();
  const at = text.lastIndexOf(key.comment);
  return `${text.slice(0, at)}${JUJU_COMMENT_PREFIX}${key.comment}`;
}

const isJujuLine = (line: string) => parseAuthorizedKey(line)?.comment.startsWith(JUJU_COMMENT_PREFIX) === true;

/** Whether the file already holds exactly the model's keys as the agents write them, whatever else it holds. */
export function holdsModelKeys(existing: string, modelKeys: string | undefined): boolean {
  const installed = existing.split('\n').filter(isJujuLine);
  const wanted = splitAuthorizedKeys(modelKeys).map(withJujuComment);
  return installed.length === wanted.length && installed.every((line, i) => line.trim() === wanted[i]);
}

/**
 * The authorized_keys file with the model's keys in it: every line the agents did not write (a
 * key whose comment is not Juju's, a `#` comment) kept as it was, Juju's replaced by the model's.
 */
export function mergeAuthorizedKeysFile(existing: string, modelKeys: string | undefined): string {
  const kept = existing.split('\n').filter((line) => line.trim() !== '' && !isJujuLine(line));
  const lines = [...kept, ...splitAuthorizedKeys(modelKeys).map(withJujuComment)];
  return lines.length ? `${lines.join('\n')}\n` : '';
}
