// The metadata.yaml checks Juju makes besides relations and config, in Juju's words (Meta.Check,
// ensureUnambiguousFormat and the storage/device schema of
// https://github.com/juju/juju/blob/3.6/internal/charm/meta.go; min-juju-version and assumes as
// the controller checks them at deploy). Keys drover has no use for on machines (resources,
// containers, extra-bindings, terms, tags...) are accepted and ignored, as a Juju machine model
// accepts them.
import { invalidArgument } from './errors.js';
import { compareVersions, JUJU_VERSION } from './juju-version.js';

const METADATA = 'metadata.yaml';
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const fail = (message: string) => invalidArgument(`${METADATA}: ${message}`);

/**
 * Juju's format detection: v1 keys (series, deployment, min-juju-version) and v2 keys
 * (containers, assumes, charm-user) may not be mixed. Keys are taken sorted, and the first one
 * found decides which side the others are reported against, as Juju reports them.
 */
export function checkUnambiguousFormat(raw: Record<string, unknown>): void {
  const V2 = ['containers', 'assumes', 'charm-user'];
  const V1 = ['series', 'deployment', 'min-juju-version'];
  let format: 'v1' | 'v2' | undefined;
  const matched: string[] = [];
  const mismatched: string[] = [];
  for (const key of Object.keys(raw).sort()) {
    if (raw[key] == null) continue;
    const detected = V2.includes(key) ? 'v2' : V1.includes(key) ? 'v1' : undefined;
    if (!detected) continue;
    format ??= detected;
    (format === detected ? matched : mismatched).push(key);
  }
  if (mismatched.length) {
    const quote = (keys: string[]) => `"${keys.join('", "')}"`;
    throw fail(`ambiguous metadata: keys ${quote(mismatched)} cannot be used with ${quote(matched)}`);
  }
}

const VERSION = /^\d+\.\d+(\.\d+)?(\.\d+)?$/;

/** min-juju-version: a version, not with manifest bases (metadata v2), not above drover's Juju. */
export function checkMinJujuVersion(value: unknown, hasManifestBases: boolean): void {
  if (value == null) return;
  if (typeof value !== 'string' || !VERSION.test(value)) throw fail(`invalid min-juju-version: invalid version "${String(value)}"`);
  if (hasManifestBases) throw fail('min-juju-version in metadata v2 not valid');
  if (compareVersions(value, JUJU_VERSION) > 0) {
    throw invalidArgument(`charm's min version (${value}) is higher than this juju model's version (${JUJU_VERSION})`);
  }
}

// ---- assumes ------------------------------------------------------------------------------

/** What a drover model offers: Juju's `juju` feature at drover's Juju version; no k8s-api. */
const FEATURES: Record<string, string> = { juju: JUJU_VERSION };
const ASSUME = /^([a-z][a-z0-9-]*)(?:\s*(>=|<)\s*(\d+(?:\.\d+)*))?$/;

/** The unmet requirements of one assumes expression, as Juju's lines (indented by depth). */
function unmet(expr: unknown, depth: number): string[] {
  const pad = '  '.repeat(depth);
  if (typeof expr === 'string') {
    const m = ASSUME.exec(expr.trim());
    if (!m) throw fail(`assumes: invalid expression "${expr}"`);
    const [, feature, op, version] = m as unknown as [string, string, string | undefined, string | undefined];
    const have = FEATURES[feature];
    if (have === undefined) return [`${pad}- charm requires feature "${feature}" but model does not support it`];
    if (op && version) {
      const ok = op === '>=' ? compareVersions(have, version) >= 0 : compareVersions(have, version) < 0;
      if (!ok)
        return [`${pad}- charm requires feature "${feature}" (version ${op} ${version}) but model currently supports version ${have}`];
    }
    return [];
  }
  if (isRecord(expr)) {
    const [[kind, list] = []] = Object.entries(expr);
    if ((kind !== 'all-of' && kind !== 'any-of') || !Array.isArray(list) || Object.keys(expr).length !== 1) {
      throw fail('assumes: expected a feature, or a mapping with one "all-of" or "any-of" list');
    }
    const children = list.map((e) => unmet(e, depth + 1));
    const failed = children.filter((c) => c.length);
    const isUnmet = kind === 'all-of' ? failed.length > 0 : failed.length === children.length && children.length > 0;
    if (!isUnmet) return [];
    const head = kind === 'all-of' ? 'charm requires all of the following:' : 'charm requires at least one of the following:';
    return [`${pad}- ${head}`, ...failed.flat()];
  }
  throw fail('assumes: expected a feature, or a mapping with one "all-of" or "any-of" list');
}

/** `assumes` (implicitly all-of), against the features a drover machine model has. */
export function checkAssumes(value: unknown): void {
  if (value == null) return;
  if (!Array.isArray(value)) throw fail('assumes: expected a list of features');
  const lines = unmet({ 'all-of': value }, 1);
  if (lines.length) throw invalidArgument(`Charm feature requirements cannot be met:\n${lines.join('\n')}`);
}

// ---- storage and devices ---------------------------------------------------------------------

const COUNT = /^(\d+)([-+]|-\d+)$/;

function storageRange(name: string, multiple: unknown): [number, number] {
  if (multiple == null) return [1, 1];
  const range = isRecord(multiple) ? multiple.range : undefined;
  if (typeof range === 'number') {
    if (!Number.isInteger(range) || range <= 0) throw fail(`storage.${name}.multiple.range: invalid count ${range}`);
    return [range, range];
  }
  const m = typeof range === 'string' ? COUNT.exec(range) : null;
  if (!m) throw fail(`storage.${name}.multiple.range: value ${JSON.stringify(range)} does not match 'm', 'm-n', or 'm+'`);
  const min = Number(m[1]);
  const max = m[2]!.length === 1 ? -1 : Number(m[2]!.slice(1));
  return [min, max];
}

/** A charm's declared store (metadata.yaml `storage`), as Juju's charm.Storage keeps it. */
export interface StorageDefinition {
  type: 'filesystem' | 'block';
  description?: string;
  /** Where a filesystem is mounted (a parent directory when more than one may be attached). */
  location?: string;
  /** The `multiple.range`: at least `countMin`, at most `countMax` (-1: no upper bound). */
  countMin: number;
  countMax: number;
  shared: boolean;
  readOnly: boolean;
  /** MiB; 0 when the charm asks for no minimum. */
  minimumSize: number;
}

/**
 * storage: each needs a type (block or filesystem); location only for filesystems; counts.
 * Returns the definitions as the charm keeps them.
 */
export function checkStorage(charm: string, value: unknown): Record<string, StorageDefinition> {
  const definitions: Record<string, StorageDefinition> = {};
  if (value == null) return definitions;
  if (!isRecord(value)) throw fail('storage: expected map, got ' + JSON.stringify(value));
  for (const [name, spec] of Object.entries(value)) {
    const store = isRecord(spec) ? spec : {};
    const type = store.type;
    if (type == null || type === '') throw fail(`charm "${charm}" storage "${name}": type must be specified`);
    if (type !== 'block' && type !== 'filesystem') throw fail(`storage.${name}.type: unexpected value "${String(type)}"`);
    if (store.location != null && type !== 'filesystem') {
      throw fail(`charm "${charm}" storage "${name}": location may not be specified for "type: ${type}"`);
    }
    const [min, max] = storageRange(name, store.multiple);
    if (min < 0) throw fail(`charm "${charm}" storage "${name}": invalid minimum count ${min}`);
    if (max === 0 || max < -1) throw fail(`charm "${charm}" storage "${name}": invalid maximum count ${max}`);
    const definition: StorageDefinition = {
      type,
      countMin: min,
      countMax: max,
      shared: store.shared === true,
      readOnly: store['read-only'] === true,
      minimumSize: minimumSize(name, store['minimum-size']),
    };
    if (typeof store.location === 'string' && store.location !== '') definition.location = store.location;
    if (typeof store.description === 'string' && store.description !== '') definition.description = store.description;
    definitions[name] = definition;
  }
  return definitions;
}

/** `minimum-size`: a size with an optional M/G/T/P/E/Z/Y suffix (M when none), as Juju's schema reads it. */
function minimumSize(name: string, value: unknown): number {
  if (value == null) return 0;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.ceil(value);
  const parsed = typeof value === 'string' ? parseSizeMiB(value) : undefined;
  if (typeof parsed !== 'number') {
    throw fail(`storage.${name}.minimum-size: ${typeof parsed === 'string' ? parsed : `expected a size, got ${JSON.stringify(value)}`}`);
  }
  return parsed;
}

const SIZE_SUFFIXES = 'MGTPEZY';

/**
 * A size in MiB, rounded up, as Juju's utils.ParseSize reads it: a non-negative number and an
 * optional suffix M, G, T, P, E, Z or Y (powers of 1024 from MiB; `MB` and `MiB` mean the same).
 * Returns the error's words instead of a number when it does not parse.
 */
export function parseSizeMiB(text: string): number | string {
  const at = text.search(/[^0-9.]/);
  let multiplier = 1;
  let digits = text;
  if (at > 0) {
    const suffix = text.slice(at);
    const index = [...SIZE_SUFFIXES].findIndex((base) => suffix === base || suffix === `${base}B` || suffix === `${base}iB`);
    if (index < 0) return `invalid multiplier suffix ${JSON.stringify(suffix)}, expected one of ${SIZE_SUFFIXES}`;
    multiplier = 1024 ** index;
    digits = text.slice(0, at);
  }
  const value = /^(\d+\.?\d*|\.\d+)$/.test(digits) ? Number(digits) : NaN;
  if (!Number.isFinite(value) || value < 0) return `expected a non-negative number, got ${JSON.stringify(digits)}`;
  return Math.ceil(value * multiplier);
}

/** devices: each needs a type; countmin may not exceed countmax. */
export function checkDevices(charm: string, value: unknown): void {
  if (value == null) return;
  if (!isRecord(value)) throw fail('devices: expected map, got ' + JSON.stringify(value));
  for (const [name, spec] of Object.entries(value)) {
    const device = isRecord(spec) ? spec : {};
    if (typeof device.type !== 'string' || device.type === '') throw fail(`charm "${charm}" device "${name}": type must be specified`);
    const count = (key: 'countmin' | 'countmax') => {
      const v = device[key];
      if (v == null) return 1;
      if (!Number.isInteger(v) || (v as number) < 0) throw fail(`devices.${name}.${key}: invalid device count ${String(v)}`);
      return v as number;
    };
    const min = count('countmin');
    const max = count('countmax');
    if (min > max) throw fail(`charm "${charm}" device "${name}": maximum count ${max} can not be smaller than minimum count ${min}`);
  }
}

// ---- extra-bindings ----------------------------------------------------------------------

/** extra-bindings: names of spaces to bind, never empty when given, never a relation's name. */
export function checkExtraBindings(charm: string, value: unknown, relationNames: string[]): void {
  if (value === undefined) return;
  const invalid = (why: string) => fail(`charm "${charm}" has invalid extra bindings: ${why}`);
  if (value === null || !isRecord(value)) throw fail(`extra-bindings: expected map, got ${JSON.stringify(value)}`);
  const names = Object.keys(value);
  if (names.length === 0) throw invalid('extra bindings cannot be empty when specified');
  if (names.includes('')) throw invalid('missing binding name');
  const clashing = names.filter((n) => relationNames.includes(n)).sort();
  if (clashing.length) throw invalid(`relation names (${clashing.join(', ')}) cannot be used in extra bindings`);
}
