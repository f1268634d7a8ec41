// Constraints: the user's hardware requirements for model, application, unit and machine.
// Parsing, canonical formatting and error messages follow Juju 2.9 (core/constraints) so that
// users and scripts that know Juju see the same strings.
import { invalidArgument } from './errors.js';

export type Constraints = {
  arch?: string;
  container?: string;
  cores?: number;
  'cpu-power'?: number;
  'instance-role'?: string;
  'instance-type'?: string;
  mem?: number; // MiB
  'root-disk'?: number; // MiB
  'root-disk-source'?: string;
  tags?: string[];
  spaces?: string[];
  'virt-type'?: string;
  zones?: string[];
  'allocate-public-ip'?: boolean;
};

export type ConstraintKey = keyof Constraints;

// Juju's fixed output order (get-constraints, status, error messages all use it).
export const CONSTRAINT_KEYS: readonly ConstraintKey[] = [
  'arch',
  'container',
  'cores',
  'cpu-power',
  'instance-role',
  'instance-type',
  'mem',
  'root-disk',
  'root-disk-source',
  'tags',
  'spaces',
  'virt-type',
  'zones',
  'allocate-public-ip',
];

// Juju's messages are kept verbatim (tests and users match on them); callers such as the CLI
// print this alongside to tell the user what would have been accepted.
export const CONSTRAINTS_HELP =
  'valid constraints are: arch, container, cores, cpu-power, instance-role, instance-type, mem, root-disk, root-disk-source, tags, spaces, virt-type, zones, allocate-public-ip; e.g. "mem=4G cores=2"';

type Kind = 'string' | 'size' | 'int' | 'list' | 'bool';
const KIND: Record<ConstraintKey, Kind> = {
  arch: 'string',
  container: 'string',
  cores: 'int',
  'cpu-power': 'int',
  'instance-role': 'string',
  'instance-type': 'string',
  mem: 'size',
  'root-disk': 'size',
  'root-disk-source': 'string',
  tags: 'list',
  spaces: 'list',
  'virt-type': 'string',
  zones: 'list',
  'allocate-public-ip': 'bool',
};

const ALIASES: Record<string, ConstraintKey> = { 'cpu-cores': 'cores' };

// Every lookup by a name or value the user typed goes through this: a plain object also answers
// for the names it inherits (`constructor`, `__proto__`, `toString`), which are no constraint,
// no size suffix and no boolean.
const own = <V>(table: Record<string, V>, name: string): V | undefined => (Object.hasOwn(table, name) ? table[name] : undefined);
const ARCHES = new Set(['amd64', 'arm64', 'ppc64el', 's390x', 'riscv64']);
const CONTAINERS = new Set(['lxd', 'kvm', 'none']);
const SIZE_SUFFIX: Record<string, number> = { M: 1, G: 1024, T: 1024 ** 2, P: 1024 ** 3 };
// Decimal float syntax as accepted by Go's strconv.ParseFloat (minus hex/inf/nan).
const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const SPACE_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
// Go's strconv.ParseBool vocabulary, which Juju accepts.
const BOOLS: Record<string, boolean> = {
  '1': true,
  t: true,
  T: true,
  true: true,
  TRUE: true,
  True: true,
  '0': false,
  f: false,
  F: false,
  false: false,
  FALSE: false,
  False: false,
};

/** A boolean as Go's strconv.ParseBool reads it (Juju reads its boolean settings so), or undefined. */
export const parseGoBool = (raw: string): boolean | undefined => own(BOOLS, raw);

const quote = (s: string): string => JSON.stringify(s); // close enough to Go's %q

// Reason strings are wrapped by the caller as `bad "<key>" constraint: <reason>`.
class Reason {
  constructor(readonly text: string) {}
}

function parseSize(raw: string): number {
  if (raw === '') return 0;
  const mult = own(SIZE_SUFFIX, raw.slice(-1));
  const num = mult === undefined ? raw : raw.slice(0, -1);
  const value = FLOAT.test(num) ? Number(num) * (mult ?? 1) : NaN;
  // `|| 0` turns -0 (from "-0") into 0; the safe-integer cap keeps MiB exact in JS numbers.
  const mib = Math.ceil(value) || 0;
  if (!(value >= 0) || mib > Number.MAX_SAFE_INTEGER) {
    throw new Reason('must be a non-negative float with optional M/G/T/P suffix');
  }
  return mib;
}

function parseUint(raw: string): number {
  if (raw === '') return 0;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value > Number.MAX_SAFE_INTEGER) {
    throw new Reason('must be a non-negative integer');
  }
  return value;
}

function parseValue(key: ConstraintKey, raw: string): Constraints[ConstraintKey] {
  switch (KIND[key]) {
    case 'size':
      return parseSize(raw);
    case 'int':
      return parseUint(raw);
    case 'bool': {
      const b = parseGoBool(raw);
      if (b === undefined) throw new Reason(`must be 'true' or 'false'`);
      return b;
    }
    case 'list': {
      // An empty value is an explicit empty list (it overrides a model value), not "unset".
      const items = raw === '' ? [] : raw.split(',');
      if (key === 'spaces') {
        for (const item of items) {
          const name = item.startsWith('^') ? item.slice(1) : item; // ^name excludes a space
          if (!SPACE_NAME.test(name)) throw new Reason(`${quote(name)} is not a valid space name`);
        }
      }
      return items;
    }
    case 'string':
      if (key === 'arch' && raw !== '' && !ARCHES.has(raw)) {
        throw new Reason(`${quote(raw)} not recognized`);
      }
      if (key === 'container' && raw !== '' && !CONTAINERS.has(raw)) {
        throw new Reason(`invalid container type ${quote(raw)}`);
      }
      return raw;
  }
}

// Items are separated by unescaped whitespace; `\ ` is a literal space inside an item
// (instance type names on some clouds contain spaces).
function splitItems(arg: string): string[] {
  return (arg.match(/(?:\\ |\S)+/g) ?? []).map((item) => item.replaceAll('\\ ', ' '));
}

export function parseConstraints(args: string | string[]): Constraints {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const arg of typeof args === 'string' ? [args] : args) {
    for (const item of splitItems(arg)) {
      const eq = item.indexOf('=');
      if (eq <= 0) throw invalidArgument(`malformed constraint ${quote(item)}`);
      const name = item.slice(0, eq);
      const raw = item.slice(eq + 1);
      const key: ConstraintKey | undefined = own(ALIASES, name) ?? (Object.hasOwn(KIND, name) ? (name as ConstraintKey) : undefined);
      if (key === undefined) throw invalidArgument(`unknown constraint ${quote(name)}`);
      // Juju quirk: an empty allocate-public-ip is ignored outright (no value, no duplicate check).
      if (key === 'allocate-public-ip' && raw === '') continue;
      try {
        if (out[key] !== undefined) throw new Reason('already set');
        out[key] = parseValue(key, raw);
      } catch (e) {
        // Juju names the key as the user typed it (so `cpu-cores`, not `cores`).
        if (e instanceof Reason) throw invalidArgument(`bad ${quote(name)} constraint: ${e.text}`);
        throw e;
      }
    }
  }
  // A plain object again: callers compare and serialise it like any other.
  return { ...out } as Constraints;
}

function formatValue(key: ConstraintKey, value: NonNullable<Constraints[ConstraintKey]>): string {
  if (Array.isArray(value)) return value.join(',');
  // Zero means "explicitly empty", printed as `key=` so it parses back to the same thing.
  if (KIND[key] === 'size') return value === 0 ? '' : `${String(value)}M`;
  if (KIND[key] === 'int') return value === 0 ? '' : String(value);
  return String(value);
}

export function formatConstraints(c: Constraints): string {
  const items: string[] = [];
  for (const key of CONSTRAINT_KEYS) {
    const value = c[key];
    if (value === undefined) continue;
    items.push(`${key}=${formatValue(key, value)}`.replaceAll(' ', '\\ '));
  }
  return items.join(' ');
}

export function isEmptyConstraints(c: Constraints): boolean {
  return CONSTRAINT_KEYS.every((key) => c[key] === undefined);
}

// Setting any of these on the application makes the model's value for the other side
// meaningless (an explicit instance type already fixes arch, memory and CPU), so the model's
// value is dropped rather than combined into an unsatisfiable pair (Juju's EC2 validator).
const SIZING: readonly ConstraintKey[] = ['arch', 'mem', 'cores', 'cpu-power'];
const CONFLICTS: Partial<Record<ConstraintKey, readonly ConstraintKey[]>> = {
  'instance-type': SIZING,
  ...Object.fromEntries(SIZING.map((k) => [k, ['instance-type'] as const])),
};

// Juju's "collapse" at unit creation: the application's value wins per key (including an
// explicit empty value), the model fills keys the application leaves unset, except model keys
// that conflict with something the application sets.
export function mergeConstraints(model: Constraints, application: Constraints): Constraints {
  const dropped = new Set<ConstraintKey>();
  for (const key of CONSTRAINT_KEYS) {
    if (application[key] !== undefined) for (const c of CONFLICTS[key] ?? []) dropped.add(c);
  }
  const out: Record<string, unknown> = {};
  for (const key of CONSTRAINT_KEYS) {
    const value = application[key] ?? (dropped.has(key) ? undefined : model[key]);
    if (value !== undefined) out[key] = Array.isArray(value) ? [...value] : value;
  }
  return out as Constraints;
}
