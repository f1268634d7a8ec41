// The status document as jubilant reads it: `jubilant.Status._from_dict` parses
// `juju status --format json` into dataclasses, indexing some keys (`d['charm-rev']`) and reading
// others with `.get` (https://github.com/canonical/jubilant/blob/main/jubilant/statustypes.py).
// The golden documents of test/e2e/cli-status.test.ts are checked here against every key it
// reads, with the type it expects: a key it indexes must be there, one it reads with `.get` may be
// missing but never of another type. Juju 2.9's keys, gone in 3.6, must be gone here too.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { JUJU_VERSION } from '#shared/domain/juju-version.js';

const GOLDEN = join(dirname(fileURLToPath(import.meta.url)), '..', 'golden');

type Kind = 'string' | 'int' | 'boolean' | 'object' | 'string[]' | 'array' | 'absent';

/**
 * [parent path, key, kind, required]: `*` is any key of a mapping, `[]` any item of a list. A
 * required key is one jubilant indexes (or, for relations, one the task asks to be always there).
 */
type Rule = [parent: string, key: string, kind: Kind, required: boolean];

const statusInfo = (parent: string): Rule[] =>
  ['current', 'message', 'reason', 'since', 'version', 'life'].map((key): Rule => [parent, key, 'string', false]);

const unit = (parent: string): Rule[] => [
  [parent, 'workload-status', 'object', false],
  [parent, 'juju-status', 'object', false],
  ...statusInfo(`${parent}.workload-status`),
  ...statusInfo(`${parent}.juju-status`),
  [parent, 'leader', 'boolean', false],
  [parent, 'upgrading-from', 'string', false],
  [parent, 'machine', 'string', false],
  [parent, 'open-ports', 'string[]', false],
  [parent, 'public-address', 'string', false],
  [parent, 'address', 'string', false],
  [parent, 'provider-id', 'string', false],
  [parent, 'subordinates', 'object', false],
];

const RULES: Rule[] = [
  // Status
  ['', 'model', 'object', true],
  ['', 'machines', 'object', true],
  ['', 'applications', 'object', true],
  ['', 'application-endpoints', 'object', false],
  ['', 'offers', 'object', false],
  ['', 'storage', 'object', false],
  ['', 'controller', 'object', false],
  ['controller', 'timestamp', 'string', false],
  // ModelStatus
  ['model', 'name', 'string', true],
  ['model', 'type', 'string', true],
  ['model', 'controller', 'string', true],
  ['model', 'cloud', 'string', true],
  ['model', 'version', 'string', true],
  ['model', 'region', 'string', false],
  ['model', 'upgrade-available', 'string', false],
  ['model', 'model-status', 'object', false],
  ...statusInfo('model.model-status'),
  // MachineStatus
  ['machines.*', 'juju-status', 'object', false],
  ...statusInfo('machines.*.juju-status'),
  ['machines.*', 'hostname', 'string', false],
  ['machines.*', 'dns-name', 'string', false],
  ['machines.*', 'ip-addresses', 'string[]', false],
  ['machines.*', 'instance-id', 'string', false],
  ['machines.*', 'display-name', 'string', false],
  ['machines.*', 'machine-status', 'object', false],
  ...statusInfo('machines.*.machine-status'),
  ['machines.*', 'modification-status', 'object', false],
  ...statusInfo('machines.*.modification-status'),
  ['machines.*', 'base', 'object', false],
  ['machines.*.base', 'name', 'string', true],
  ['machines.*.base', 'channel', 'string', true],
  ['machines.*', 'network-interfaces', 'object', false],
  ['machines.*.network-interfaces.*', 'ip-addresses', 'string[]', true],
  ['machines.*.network-interfaces.*', 'mac-address', 'string', true],
  ['machines.*.network-interfaces.*', 'is-up', 'boolean', true],
  ['machines.*', 'containers', 'object', false],
  ['machines.*', 'constraints', 'string', false],
  ['machines.*', 'hardware', 'string', false],
  ['machines.*', 'controller-member-status', 'string', false],
  ['machines.*', 'ha-primary', 'boolean', false],
  ['machines.*', 'lxd-profiles', 'object', false],
  ['machines.*', 'series', 'absent', false],
  // AppStatus
  ['applications.*', 'charm', 'string', true],
  ['applications.*', 'charm-origin', 'string', true],
  ['applications.*', 'charm-name', 'string', true],
  ['applications.*', 'charm-rev', 'int', true],
  ['applications.*', 'exposed', 'boolean', true],
  ['applications.*', 'base', 'object', false],
  ['applications.*.base', 'name', 'string', true],
  ['applications.*.base', 'channel', 'string', true],
  ['applications.*', 'charm-channel', 'string', false],
  ['applications.*', 'charm-version', 'string', false],
  ['applications.*', 'charm-profile', 'string', false],
  ['applications.*', 'can-upgrade-to', 'string', false],
  ['applications.*', 'scale', 'int', false],
  ['applications.*', 'provider-id', 'string', false],
  ['applications.*', 'address', 'string', false],
  ['applications.*', 'life', 'string', false],
  ['applications.*', 'application-status', 'object', false],
  ...statusInfo('applications.*.application-status'),
  ['applications.*', 'relations', 'object', false],
  ['applications.*.relations', '*', 'array', false],
  ['applications.*.relations.*[]', 'related-application', 'string', true],
  ['applications.*.relations.*[]', 'interface', 'string', true],
  ['applications.*.relations.*[]', 'scope', 'string', true],
  ['applications.*', 'subordinate-to', 'string[]', false],
  ['applications.*', 'units', 'object', false],
  ...unit('applications.*.units.*'),
  ...unit('applications.*.units.*.subordinates.*'),
  ['applications.*', 'version', 'string', false],
  ['applications.*', 'endpoint-bindings', 'object', false],
  ['applications.*.endpoint-bindings', '*', 'string', false],
  ['applications.*', 'series', 'absent', false],
  ['applications.*', 'os', 'absent', false],
];

/** The entries of a mapping a rule's key names: all of them for `*`. */
const entriesOf = (value: object, key: string): (readonly [string, unknown])[] =>
  key === '*' ? Object.entries(value) : key in value ? [[key, (value as Record<string, unknown>)[key]] as const] : [];

/** The values at a path, with where each is. */
function at(doc: unknown, path: string): { where: string; value: unknown }[] {
  let found = [{ where: '', value: doc }];
  for (const step of path ? path.split('.') : []) {
    const list = step.endsWith('[]');
    const key = list ? step.slice(0, -2) : step;
    const next: { where: string; value: unknown }[] = [];
    for (const { where, value } of found) {
      if (typeof value !== 'object' || value === null) continue;
      for (const [k, v] of entriesOf(value, key)) {
        const here = where ? `${where}.${k}` : k;
        if (list && Array.isArray(v)) v.forEach((item, i) => next.push({ where: `${here}[${i}]`, value: item }));
        else if (!list) next.push({ where: here, value: v });
      }
    }
    found = next;
  }
  return found;
}

function kindOf(value: unknown): Kind {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (Number.isInteger(value)) return 'int';
  if (Array.isArray(value)) return value.length && value.every((v) => typeof v === 'string') ? 'string[]' : 'array';
  if (typeof value === 'object' && value !== null) return 'object';
  return 'absent';
}

/** Every way the document departs from what jubilant reads (`where: expected kind, got kind`), sorted. */
function departures(doc: unknown): string[] {
  const out = new Set<string>();
  for (const [parent, key, kind, required] of RULES) {
    for (const { where, value } of at(doc, parent)) {
      // jubilant reads keys of it, so it must be a mapping (a 2.9 relation is a bare name).
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        out.add(`${where}: expected object, got ${kindOf(value)}`);
        continue;
      }
      const entries = entriesOf(value, key);
      if (kind === 'absent') {
        if (entries.length) out.add(`${where}.${key}: a Juju 2.9 key, gone in Juju 3.6`);
        continue;
      }
      if (!entries.length && required) out.add(`${where ? `${where}.` : ''}${key}: missing`);
      for (const [k, v] of entries) {
        const got = kindOf(v);
        // An empty list is any list; a string list is a list too.
        const fits = got === kind || (kind === 'array' && got === 'string[]') || (kind === 'string[]' && Array.isArray(v) && !v.length);
        if (!fits) out.add(`${where ? `${where}.` : ''}${k}: expected ${kind}, got ${got}`);
      }
    }
  }
  return [...out].sort();
}

const golden = (name: string) => readFileSync(join(GOLDEN, name), 'utf8');

describe("status as jubilant reads it (Juju 3.6's formatted status)", () => {
  const json = JSON.parse(golden('status.json.golden')) as unknown;
  const yaml = parse(golden('status.yaml.golden')) as unknown;

  it('the JSON golden has every key jubilant indexes, each key it reads of the type it expects, and no 2.9 key', () => {
    expect(departures(json)).toEqual([]);
  });

  it('the YAML golden is the same document', () => {
    expect(yaml).toEqual(json);
    expect(departures(yaml)).toEqual([]);
  });

  it('the golden shows what the table checks: relations, units, subordinates, bindings and bases', () => {
    for (const path of [
      'applications.*.relations.*[]',
      'applications.*.units.*',
      'applications.*.units.*.subordinates.*',
      'applications.*.endpoint-bindings',
      'applications.*.base',
      'machines.*.base',
      'machines.*.juju-status',
    ])
      expect(at(json, path).length, path).toBeGreaterThan(0);
  });

  it('relations are lists of related applications, each with its interface and scope', () => {
    const doc = json as { applications: Record<string, { relations?: Record<string, unknown> }> };
    expect(doc.applications['wordpress']!.relations).toEqual({
      db: [{ 'related-application': 'mysql', interface: 'mysql', scope: 'global' }],
      'logging-dir': [{ 'related-application': 'logging', interface: 'logging', scope: 'container' }],
    });
  });

  it("charm URLs have no series, and the model's version is the agent version drover claims", () => {
    const doc = json as { model: { version: string }; applications: Record<string, { charm: string }> };
    for (const app of Object.values(doc.applications)) expect(app.charm).toMatch(/^local:[a-z][a-z0-9-]*-\d+$/);
    expect(doc.model.version).toBe(JUJU_VERSION);
  });

  it('finds a document shaped as Juju 2.9 wrote it wanting', () => {
    const old = structuredClone(json) as { applications: Record<string, Record<string, unknown>> };
    old.applications['wordpress']!['relations'] = { db: ['mysql'] };
    old.applications['wordpress']!['series'] = 'jammy';
    delete old.applications['mysql']!['charm-rev'];
    expect(departures(old)).toEqual([
      'applications.mysql.charm-rev: missing',
      'applications.wordpress.relations.db[0]: expected object, got string',
      'applications.wordpress.series: a Juju 2.9 key, gone in Juju 3.6',
    ]);
  });
});
