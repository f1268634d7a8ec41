// Hostile bundles for the CLI fuzzer (test/fuzz/cli.fuzz.test.ts): a valid bundle of two local
// charms, placed and related, with its parts replaced by what a hostile or careless author writes:
// application names and option keys named like built-ins (`constructor`, `__proto__`,
// `toString`), unicode and control characters, charm paths out of the bundle's directory or to
// files that are no charm, odd unit counts and placements, relations to nothing, keys drover does
// not know; or no bundle at all (a YAML bomb, deep nesting, a list, empty text).
import fc from 'fast-check';
import { stringify } from 'yaml';
import { hostileStrings } from './fuzz-api.js';

type Bundle = Record<string, unknown>;

/** The valid bundle each input starts from; `charms` is where the database and client charms are. */
function validBundle(charms: { database: string; client: string }): Bundle {
  return {
    series: 'jammy',
    applications: {
      database: { charm: charms.database, num_units: 1, options: { 'db-name': 'appdb' } },
      client: { charm: charms.client, num_units: 1, to: ['database/0'], expose: true },
    },
    relations: [['client:db', 'database:db']],
  };
}

const builtInKeys = fc.constantFrom('constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'prototype');
const oddKeys = fc.oneof(builtInKeys, fc.constantFrom('ünï', '💥', '\u202eevil', '\0', '\n', '\x1b[31m', '', ' ', 'x'.repeat(300)));
const oddNumbers = fc.constantFrom<unknown>(-1, 0.5, 1e308, 2 ** 53 + 2, 10_001, '1', null, [], {});
const oddCharms = fc.constantFrom('../../../etc', '/etc/passwd', '/dev/null', '.', '', 'ch:database', 'database', 'local:x-1', '~/x');

type Edit = (b: Bundle, value: unknown, key: string) => void;

const apps = (b: Bundle) => b.applications as Record<string, Record<string, unknown>>;

/** Ways to spoil one part of the bundle; each takes a hostile value and a hostile key. */
const EDITS: Edit[] = [
  // An application named by the key, as the database's twin.
  (b, _v, key) =>
    Object.defineProperty(apps(b), key, { value: { ...apps(b).database }, enumerable: true, configurable: true, writable: true }),
  // An option named by the key.
  (b, value, key) => Object.defineProperty(apps(b).database!.options, key, { value, enumerable: true, configurable: true, writable: true }),
  (b, value) => (apps(b).database!.num_units = value),
  (b, value) => (apps(b).client!.to = value),
  (b, value) => (apps(b).client!.charm = value),
  (b, value) => (b.relations = [[value, 'database:db']]),
  (b, value) => (b.relations = value),
  (b, value) => (b.series = value),
  (b, value) => (apps(b).client!.constraints = value),
  (b, value, key) => (b[key] = value),
  (b, value) => (b.machines = { '0': value, '-1': {} }),
  (b, value) => (b.applications = value),
];

/** The text of a hostile bundle whose charms are at `charms` (absolute directories). */
export function hostileBundles(charms: { database: string; client: string }): fc.Arbitrary<string> {
  const edited = fc
    .record({
      edits: fc.array(
        fc.record({
          at: fc.nat({ max: EDITS.length - 1 }),
          value: fc.oneof(hostileStrings(), oddNumbers, oddCharms),
          key: oddKeys,
        }),
        { minLength: 1, maxLength: 3 },
      ),
    })
    .map(({ edits }) => {
      const bundle = validBundle(charms);
      for (const { at, value, key } of edits) {
        try {
          EDITS[at]!(bundle, value, key);
        } catch {
          // An edit of a part an earlier edit replaced (applications a string, say): the bundle stays as it is.
        }
      }
      return stringify(bundle);
    });
  return fc.oneof(
    { weight: 6, arbitrary: edited },
    // No bundle at all: a YAML bomb, deep nesting, a long or empty text.
    { weight: 1, arbitrary: hostileStrings() },
  );
}
