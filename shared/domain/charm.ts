// Charm metadata (metadata.yaml) and configuration schema (config.yaml), read the way Juju's
// juju/charm package reads them, plus drover's `required: true` on endpoints (from Juju's 2011
// required-relations-proposal.txt, docs/lifecycle-rules.md's Sources). Every error names the file
// and the field, so a charm author can fix the charm without reading drover's source.
import { parseYaml } from './yaml.js';
import * as z from 'zod';
import { parseActions, type Actions } from './actions.js';
import { unsupportedBaseMessage } from './bases.js';
import { declaredBaseSeries, type BaseFiles } from './charm-bases.js';
import {
  checkAssumes,
  checkDevices,
  checkExtraBindings,
  checkMinJujuVersion,
  checkStorage,
  checkUnambiguousFormat,
  type StorageDefinition,
} from './charm-checks.js';
import { errorMessage, invalidArgument } from './errors.js';
import { UNSTORABLE_KEY, unstorableKey, unstorableKeyPath } from './own-keys.js';
import { isValidApplicationName, isValidEndpointName } from './names.js';
import { parseCharmResources, type CharmResource } from './resources.js';

export type Role = 'provider' | 'requirer' | 'peer';
export type Scope = 'global' | 'container';
export interface Endpoint {
  name: string;
  role: Role;
  interface: string;
  scope: Scope;
  limit?: number;
  required: boolean;
}
export type ConfigType = 'string' | 'int' | 'float' | 'boolean';
export type ConfigValue = string | number | boolean;
export interface ConfigOption {
  type: ConfigType;
  default?: ConfigValue;
  description?: string;
}
export interface CharmMeta {
  name: string;
  summary?: string;
  description?: string;
  /** From metadata.yaml `series`, or the bases of manifest.yaml/charmcraft.yaml as series. */
  series: string[];
  subordinate: boolean;
  /** Declared endpoints only; charmEndpoints() adds the implicit juju-info. */
  endpoints: Endpoint[];
  config: Record<string, ConfigOption>;
  /** actions.yaml (shared/domain/actions.ts); absent: the charm defines no actions. */
  actions?: Actions;
  /** metadata.yaml `resources` (./resources.ts); absent: the charm declares none. */
  resources?: Record<string, CharmResource>;
  /** metadata.yaml `storage` (shared/domain/storage.ts); absent: the charm declares none. */
  storage?: Record<string, StorageDefinition>;
}

const METADATA = 'metadata.yaml';
const CONFIG = 'config.yaml';

// A missing required field and a field of the wrong type get different advice.
const must = (what: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`),
});
const text = () => z.string(must('a string'));

const endpointSpec = z.preprocess(
  // `db: mysql` is shorthand for `db: {interface: mysql}`.
  (v) => (typeof v === 'string' ? { interface: v } : v),
  z.object(
    {
      interface: text().min(1, { error: 'must not be empty' }),
      scope: z.enum(['global', 'container'], { error: 'must be "global" or "container"' }).nullish(),
      limit: z.number(must('an integer')).int({ error: 'must be an integer' }).positive({ error: 'must be a positive integer' }).nullish(),
      // An empty value (`limit:`, as in Juju's wordpress) means "not given".
      // Juju parses `optional` but never enforces it; drover does the same.
      optional: z.boolean(must('true or false')).nullish(),
      required: z.boolean(must('true or false')).nullish(),
    },
    { error: 'must be an interface name or a mapping with an "interface" key' },
  ),
);
const endpointMap = z.record(z.string(), endpointSpec, must('a mapping of endpoint name to interface')).nullish();

// Unknown top-level keys (tags, extra-bindings, ...) are Juju's and stripped, not
// errors; the ones Juju checks are checked in charm-checks.ts.
const metadataSchema = z.object(
  {
    name: text(),
    summary: text().nullish(),
    description: text().nullish(),
    series: z.array(text(), must('a list of series names')).nullish(),
    subordinate: z.boolean(must('true or false')).nullish(),
    provides: endpointMap,
    requires: endpointMap,
    peers: endpointMap,
    'min-juju-version': z.unknown().optional(),
    assumes: z.unknown().optional(),
    storage: z.unknown().optional(),
    devices: z.unknown().optional(),
    'extra-bindings': z.unknown().optional(),
    resources: z.unknown().optional(),
  },
  must('a YAML mapping'),
);

const configSchema = z.object(
  {
    options: z
      .record(
        z.string(),
        z.object(
          {
            // Juju (after pyjuju) treats a missing type as "string".
            type: z.enum(['string', 'int', 'float', 'boolean'], { error: 'must be one of string, int, float, boolean' }).nullish(),
            default: z.unknown().optional(),
            description: text().nullish(),
          },
          must('a mapping with "type", "default" and "description"'),
        ),
        must('a mapping of option name to option'),
      )
      .nullish(),
  },
  must('a YAML mapping'),
);

function fieldError(file: string, path: readonly PropertyKey[], message: string) {
  const field = path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');
  return invalidArgument(field ? `${file}: "${field}" ${message}` : `${file}: ${message}`);
}

function readYaml<T>(file: string, source: string, schema: z.ZodType<T>): T {
  let doc: unknown;
  try {
    doc = parseYaml(source);
  } catch (e) {
    // The parser's first line has the problem and its line/column; the rest is a code frame.
    const first = errorMessage(e).split('\n')[0] ?? '';
    throw invalidArgument(`${file}: invalid YAML: ${first}`);
  }
  // zod drops `__proto__` from what it parses: refused, so no option or endpoint vanishes.
  const holder = unstorableKeyPath(doc);
  if (holder !== undefined) throw fieldError(file, holder === '' ? [] : holder.split('.'), unstorableKey(UNSTORABLE_KEY));
  const result = schema.safeParse(doc);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw fieldError(file, issue?.path ?? [], issue?.message ?? 'is invalid');
  }
  return result.data;
}

const subordinateDeclared = (raw: { subordinate?: boolean | null | undefined }) => raw.subordinate ?? false;

const SECTIONS = [
  ['provides', 'provider'],
  ['requires', 'requirer'],
  ['peers', 'peer'],
] as const;

// Juju reserves `juju` and `juju-*` for endpoints it supplies itself (juju-info), except in
// charms whose own name starts with `juju-` (Juju's reservedName).
const isReserved = (charm: string, name: string) => !charm.startsWith('juju-') && (name === 'juju' || name.startsWith('juju-'));

function rawMapping(source: string): Record<string, unknown> {
  try {
    const doc: unknown = parseYaml(source);
    return typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * metadata.yaml, config.yaml and actions.yaml, plus the files that declare bases when metadata.yaml has no
 * `series` (manifest.yaml in a packed charm, charmcraft.yaml in a source directory).
 */
export function parseCharm(metadataYaml: string, configYaml?: string, actionsYaml?: string, baseFiles: BaseFiles = {}): CharmMeta {
  const raw = readYaml(METADATA, metadataYaml, metadataSchema);
  checkUnambiguousFormat(rawMapping(metadataYaml));
  const charm = raw.name;
  if (!isValidApplicationName(charm)) {
    throw fieldError(
      METADATA,
      ['name'],
      `must be a valid charm name (lowercase letters, digits and hyphens, starting with a letter), got "${charm}"`,
    );
  }
  raw.series?.forEach((s, i) => {
    if (!/^[a-z]+[a-z0-9]*$/.test(s)) throw fieldError(METADATA, ['series', i], `must be a series name like "jammy", got "${s}"`);
  });
  const declared = declaredBaseSeries(baseFiles);
  checkMinJujuVersion(raw['min-juju-version'], declared?.file === 'manifest.yaml');
  checkAssumes(raw.assumes);
  const storage = checkStorage(charm, raw.storage);
  checkDevices(charm, raw.devices);
  // Juju 3 computes a charm's bases from manifest.yaml when it has them, else from metadata series.
  const series = declared?.series ?? raw.series ?? [];

  const endpoints: Endpoint[] = [];
  const seen = new Set<string>();
  for (const [section, role] of SECTIONS) {
    for (const [name, spec] of Object.entries(raw[section] ?? {})) {
      const fail = (message: string) => invalidArgument(`${METADATA}: ${message}`);
      if (!isValidEndpointName(name)) {
        throw fail(
          `charm "${charm}" has an invalid relation name in "${section}": "${name}" (use lowercase letters, digits and single hyphens, starting with a letter)`,
        );
      }
      const scope = spec.scope ?? 'global';
      // Juju lets a subordinate's container-scoped requirer use the juju-* namespace: real
      // subordinates (nrpe, telegraf) declare `requires: juju-info: {interface: juju-info, scope: container}`.
      const mayUseReserved = subordinateDeclared(raw) && role === 'requirer' && scope === 'container';
      if (!mayUseReserved && isReserved(charm, name)) throw fail(`charm "${charm}" using a reserved relation name: "${name}"`);
      if (seen.has(name)) throw fail(`charm "${charm}" using a duplicated relation name: "${name}"`);
      seen.add(name);
      // Only a requirer may name a juju-* interface: providing one would shadow the implicit juju-info.
      if (role !== 'requirer' && isReserved(charm, spec.interface)) {
        throw fail(`charm "${charm}" relation "${name}" using a reserved interface: "${spec.interface}"`);
      }
      // Peers are the units of one application talking to each other, which never share a container.
      if (role === 'peer' && scope === 'container') {
        throw fail(`charm "${charm}" peer relation "${name}" cannot have container scope; remove "scope: container"`);
      }
      // Peer relations are created at deploy, so "required" could never be unmet.
      if (role === 'peer' && spec.required) {
        throw fail(`charm "${charm}" peer relation "${name}" cannot be required; peer relations are created at deploy`);
      }
      if (spec.optional && spec.required) {
        throw fail(`charm "${charm}" relation "${name}" cannot be both optional and required`);
      }
      const endpoint: Endpoint = { name, role, interface: spec.interface, scope, required: spec.required ?? false };
      if (spec.limit != null) endpoint.limit = spec.limit;
      endpoints.push(endpoint);
    }
  }

  checkExtraBindings(
    charm,
    raw['extra-bindings'],
    endpoints.map((e) => e.name),
  );

  const subordinate = raw.subordinate ?? false;
  // A subordinate is placed only through a container-scoped relation to a principal
  // (required-relations-proposal.txt, "Subordinate services"), so it must be able to require one.
  if (subordinate && !endpoints.some((e) => e.role === 'requirer' && e.scope === 'container')) {
    throw invalidArgument(`${METADATA}: subordinate charm "${charm}" lacks "requires" relation with container scope`);
  }

  const meta: CharmMeta = { name: charm, series, subordinate, endpoints, config: parseConfigOptions(configYaml) };
  const actions = parseActions(charm, actionsYaml);
  if (Object.keys(actions).length) meta.actions = actions;
  const resources = parseCharmResources(raw.resources);
  if (Object.keys(resources).length) meta.resources = resources;
  if (Object.keys(storage).length) meta.storage = storage;
  if (raw.summary != null) meta.summary = raw.summary;
  if (raw.description != null) meta.description = raw.description;
  return meta;
}

function parseConfigOptions(configYaml: string | undefined): Record<string, ConfigOption> {
  if (configYaml === undefined) return {};
  // An empty config.yaml is a charm without options, not an error.
  const raw = readYaml(CONFIG, configYaml, configSchema.nullable()) ?? {};
  const config: Record<string, ConfigOption> = {};
  for (const [name, spec] of Object.entries(raw.options ?? {})) {
    const option: ConfigOption = { type: spec.type ?? 'string' };
    if (spec.default !== undefined && spec.default !== null) {
      if (!matchesType(option.type, spec.default)) {
        throw fieldError(
          CONFIG,
          ['options', name, 'default'],
          `must be ${article(option.type)} to match the option's type, got ${JSON.stringify(spec.default)}`,
        );
      }
      option.default = spec.default;
    }
    if (spec.description != null) option.description = spec.description;
    config[name] = option;
  }
  return config;
}

function matchesType(type: ConfigType, value: unknown): value is ConfigValue {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'int':
      return Number.isSafeInteger(value);
    case 'float':
      // An int default for a float option is fine, as in Juju.
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
  }
}

const article = (type: ConfigType) => (type === 'int' ? 'an int' : `a ${type}`);

export function charmEndpoints(meta: CharmMeta): Endpoint[] {
  // Every charm provides juju-info; it is global here and becomes container-scoped only when a
  // subordinate requires it with container scope (the relation takes the narrower scope).
  return [...meta.endpoints, { name: 'juju-info', role: 'provider', interface: 'juju-info', scope: 'global', required: false }];
}

export function configDefaults(meta: CharmMeta): Record<string, ConfigValue> {
  const defaults: Record<string, ConfigValue> = {};
  for (const [name, option] of Object.entries(meta.config)) {
    if (option.default !== undefined) defaults[name] = option.default;
  }
  return defaults;
}

// Go's strconv.ParseBool spellings, which `juju config` accepts.
const TRUE = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

export function parseConfigValues(meta: CharmMeta, assignments: Record<string, string>): Record<string, ConfigValue> {
  const values: Record<string, ConfigValue> = {};
  for (const [key, raw] of Object.entries(assignments)) {
    const option = Object.hasOwn(meta.config, key) ? meta.config[key] : undefined;
    if (!option) {
      const valid = Object.keys(meta.config).sort();
      throw invalidArgument(
        valid.length
          ? `unknown option "${key}"; valid options for charm "${meta.name}" are: ${valid.join(', ')}`
          : `unknown option "${key}"; charm "${meta.name}" has no config options`,
      );
    }
    values[key] = parseConfigValue(key, option.type, raw);
  }
  return values;
}

function parseConfigValue(key: string, type: ConfigType, raw: string): ConfigValue {
  const bad = (hint: string) => invalidArgument(`option "${key}" expected ${type}, got "${raw}"; ${hint}`);
  switch (type) {
    case 'string':
      return raw;
    case 'int': {
      const n = Number(raw);
      if (!/^[-+]?\d+$/.test(raw) || !Number.isSafeInteger(n)) throw bad('use a whole number such as 42');
      return n;
    }
    case 'float': {
      const n = Number(raw);
      if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw) || !Number.isFinite(n)) throw bad('use a number such as 0.5');
      return n;
    }
    case 'boolean':
      if (TRUE.has(raw)) return true;
      if (FALSE.has(raw)) return false;
      throw bad('use true or false');
  }
}

/**
 * Juju's deploy-time series choice (without --force,
 * https://github.com/juju/juju/blob/2.9/cmd/juju/application/deployer/series_selector.go): the
 * requested series if the charm supports it; else the model's default series if the charm
 * supports it; else the charm's first listed series. A charm that lists no series runs on
 * whatever was asked for.
 */
export function chooseSeries(meta: CharmMeta, requested?: string, defaultSeries?: string): string {
  const supported = meta.series;
  if (requested) {
    if (supported.length && !supported.includes(requested)) throw invalidArgument(unsupportedBaseMessage(requested, supported));
    return requested;
  }
  if (defaultSeries && (!supported.length || supported.includes(defaultSeries))) return defaultSeries;
  const first = supported[0];
  if (first === undefined) {
    throw invalidArgument(`series not specified and charm "${meta.name}" does not declare any; deploy with --series <series>`);
  }
  return first;
}
