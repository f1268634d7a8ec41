// A bundle as Juju writes it (https://documentation.ubuntu.com/juju/3.6/reference/bundle/; the
// fields are those of Juju's BundleData, bundledata.go in https://github.com/juju/charm):
// `applications` (or Juju 1's `services`), `machines` and `relations`, with `series` or
// `default-base` for the whole bundle. Read from a file, or from a directory holding bundle.yaml.
//
// Every problem is collected, not only the first, so a user fixes a bundle in one pass. A charm is
// a local path or a Charmhub name, with its `channel` and `revision`. Fields Juju knows that mean
// nothing for drover (annotations, bindings, trust) are accepted and ignored; those drover cannot
// honour (storage, devices, resources, offers) are refused by name.
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseYamlReportingAll, YamlTooLargeError } from '#shared/domain/yaml.js';

export interface BundleApplication {
  /** The charm as the bundle names it, and its directory or .charm file resolved against the bundle. */
  charm: string;
  charmPath?: string;
  /** A charm on Charmhub (`postgresql`, `ch:postgresql`): its name, and the channel and revision the bundle gives. */
  charmhub?: { name: string; channel?: string; revision?: number };
  numUnits: number;
  to: string[];
  /** Option values as the YAML gives them (a string, number or boolean each). */
  options: Record<string, unknown>;
  constraints?: string;
  series?: string;
  base?: string;
  expose: boolean;
}

export interface BundleMachine {
  series?: string;
  base?: string;
  constraints?: string;
}

export interface Bundle {
  series?: string;
  defaultBase?: string;
  applications: Map<string, BundleApplication>;
  machines: Map<string, BundleMachine>;
  /** Each relation as its two endpoint arguments (`app` or `app:endpoint`). */
  relations: string[][];
}

export interface ReadBundle {
  /** The bundle file read. */
  path: string;
  bundle: Bundle;
  problems: string[];
}

const TOP_LEVEL = new Set(['applications', 'services', 'machines', 'relations', 'series', 'default-base', 'description', 'name', 'tags']);
const APPLICATION_FIELDS = new Set([
  'charm',
  'channel',
  'revision',
  'num_units',
  'to',
  'options',
  'constraints',
  'series',
  'base',
  'expose',
]);
const IGNORED_APPLICATION_FIELDS = new Set(['annotations', 'bindings', 'trust']);
const MACHINE_FIELDS = new Set(['series', 'base', 'constraints', 'annotations']);

/** True for a path that names a bundle: a .yaml/.yml file, or a directory holding bundle.yaml. */
export async function isBundlePath(path: string): Promise<boolean> {
  if (/\.ya?ml$/.test(path)) return true;
  const info = await stat(path).catch(() => undefined);
  return Boolean(info?.isDirectory() && (await stat(join(path, 'bundle.yaml')).catch(() => undefined))?.isFile());
}

export async function readBundle(path: string): Promise<ReadBundle> {
  const info = await stat(path).catch(() => undefined);
  const file = info?.isDirectory() ? join(path, 'bundle.yaml') : path;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { path: file, bundle: emptyBundle(), problems: [`bundle "${file}" not found`] };
  }
  let parsed: { value: unknown; errors: string[] };
  try {
    parsed = parseYamlReportingAll(text);
  } catch (e) {
    if (!(e instanceof YamlTooLargeError)) throw e;
    return { path: file, bundle: emptyBundle(), problems: [`cannot read bundle "${file}": ${e.message}`] };
  }
  if (parsed.errors.length) return { path: file, bundle: emptyBundle(), problems: parsed.errors.map((e) => `invalid YAML: ${e}`) };
  const problems: string[] = [];
  const bundle = interpret(parsed.value, dirname(resolve(file)), problems);
  return { path: file, bundle, problems };
}

const emptyBundle = (): Bundle => ({ applications: new Map(), machines: new Map(), relations: [] });

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function optionalString(value: unknown, what: string, problems: string[]): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  problems.push(`${what} must be a string`);
  return undefined;
}

function interpret(doc: unknown, dir: string, problems: string[]): Bundle {
  const bundle = emptyBundle();
  if (!isRecord(doc)) {
    problems.push('a bundle is a YAML mapping with "applications" and, optionally, "machines" and "relations"');
    return bundle;
  }
  for (const key of Object.keys(doc)) if (!TOP_LEVEL.has(key)) problems.push(unknownField(key, 'the bundle'));
  const series = optionalString(doc.series, 'the bundle\'s "series"', problems);
  const defaultBase = optionalString(doc['default-base'], 'the bundle\'s "default-base"', problems);
  if (series !== undefined) bundle.series = series;
  if (defaultBase !== undefined) bundle.defaultBase = defaultBase;

  const applications = doc.applications ?? doc.services;
  if (applications !== undefined && !isRecord(applications)) problems.push('"applications" must map application names to their settings');
  for (const [name, spec] of Object.entries(isRecord(applications) ? applications : {})) {
    const app = interpretApplication(name, spec, dir, problems);
    if (app) bundle.applications.set(name, app);
  }

  if (doc.machines !== undefined && doc.machines !== null && !isRecord(doc.machines))
    problems.push('"machines" must map machine ids to their settings');
  for (const [id, spec] of Object.entries(isRecord(doc.machines) ? doc.machines : {})) {
    bundle.machines.set(id, interpretMachine(id, spec, problems));
  }

  if (doc.relations !== undefined && doc.relations !== null && !Array.isArray(doc.relations))
    problems.push('"relations" must be a list of endpoint pairs, e.g. [["wordpress:db", "mysql:db"]]');
  for (const pair of Array.isArray(doc.relations) ? doc.relations : []) {
    if (!Array.isArray(pair) || !pair.every((ep) => typeof ep === 'string')) {
      problems.push(`relation ${JSON.stringify(pair)} must be a list of two endpoints, e.g. ["wordpress:db", "mysql:db"]`);
      continue;
    }
    bundle.relations.push(pair as string[]);
  }
  return bundle;
}

function unknownField(key: string, where: string): string {
  return `unknown field "${key}" in ${where}`;
}

function interpretApplication(name: string, spec: unknown, dir: string, problems: string[]): BundleApplication | undefined {
  if (!isRecord(spec)) {
    problems.push(`bundle application for key "${name}" is undefined`);
    return undefined;
  }
  for (const key of Object.keys(spec))
    if (!APPLICATION_FIELDS.has(key) && !IGNORED_APPLICATION_FIELDS.has(key))
      problems.push(
        ['storage', 'devices', 'resources', 'offers', 'exposed-endpoints', 'placement', 'scale'].includes(key)
          ? `application "${name}": "${key}" is not supported by drover`
          : unknownField(key, `application "${name}"`),
      );
  const where = `application "${name}"`;
  const charm = optionalString(spec.charm, `the charm of ${where}`, problems) ?? '';
  const numUnits = spec.num_units ?? 0;
  if (typeof numUnits !== 'number' || !Number.isInteger(numUnits)) problems.push(`num_units of ${where} must be a whole number`);
  else if (numUnits < 0) problems.push(`negative number of units specified on application "${name}"`);
  const to = spec.to === undefined || spec.to === null ? [] : Array.isArray(spec.to) ? spec.to : [spec.to];
  if (!to.every((p) => typeof p === 'string' || typeof p === 'number')) problems.push(`"to" of ${where} must list placement directives`);
  const options = spec.options ?? {};
  if (!isRecord(options)) problems.push(`"options" of ${where} must map option names to values`);
  const constraints = optionalString(spec.constraints, `the constraints of ${where}`, problems);
  const series = optionalString(spec.series, `the series of ${where}`, problems);
  const base = optionalString(spec.base, `the base of ${where}`, problems);
  const app: BundleApplication = {
    charm,
    numUnits: typeof numUnits === 'number' && numUnits >= 0 ? Math.floor(numUnits) : 0,
    to: to.map(String),
    options: isRecord(options) ? options : {},
    expose: spec.expose === true,
    ...(constraints !== undefined ? { constraints } : {}),
    ...(series !== undefined ? { series } : {}),
    ...(base !== undefined ? { base } : {}),
  };
  // A local charm is a path (Juju: one that starts with "." or "/"), relative to the bundle; any
  // other charm is Charmhub's, at the bundle's channel and revision (verify.ts checks the name).
  const channel = optionalString(spec.channel, `the channel of ${where}`, problems);
  const revision = spec.revision;
  if (revision !== undefined && revision !== null && (typeof revision !== 'number' || !Number.isInteger(revision) || revision < 0))
    problems.push(`the revision of ${where} must be a whole number`);
  if (charm.startsWith('.') || charm.startsWith('/')) app.charmPath = resolve(dir, charm);
  else if (charm !== '')
    app.charmhub = {
      name: charm.replace(/^ch:/, ''),
      ...(channel !== undefined ? { channel } : {}),
      ...(typeof revision === 'number' && Number.isInteger(revision) && revision >= 0 ? { revision } : {}),
    };
  return app;
}

function interpretMachine(id: string, spec: unknown, problems: string[]): BundleMachine {
  if (spec === null || spec === undefined) return {};
  if (!isRecord(spec)) {
    problems.push(`machine "${id}" must map to its settings (series, base, constraints) or be empty`);
    return {};
  }
  for (const key of Object.keys(spec)) if (!MACHINE_FIELDS.has(key)) problems.push(unknownField(key, `machine "${id}"`));
  const series = optionalString(spec.series, `the series of machine "${id}"`, problems);
  const base = optionalString(spec.base, `the base of machine "${id}"`, problems);
  const constraints = optionalString(spec.constraints, `the constraints of machine "${id}"`, problems);
  return {
    ...(series !== undefined ? { series } : {}),
    ...(base !== undefined ? { base } : {}),
    ...(constraints !== undefined ? { constraints } : {}),
  };
}
