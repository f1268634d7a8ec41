// Bundle verification: every problem at once, in the words of Juju's BundleData verification.
import { describe, expect, it } from 'vitest';
import type { Bundle, BundleApplication } from '../../../cli/bundle/bundle-file.js';
import { verifyBundle } from '../../../cli/bundle/verify.js';
import { parseCharm } from '#shared/domain/charm.js';

const database = parseCharm('name: database\nsummary: s\nseries: [jammy]\nprovides:\n  db: {interface: dbtest}\n');
const client = parseCharm('name: client\nsummary: s\nseries: [jammy]\nrequires:\n  db: {interface: dbtest}\n');
const charms: Record<string, ReturnType<typeof parseCharm>> = { database, client };

const app = (charm: string, rest: Partial<BundleApplication> = {}): BundleApplication => ({
  charm: `./${charm}`,
  charmPath: `/charms/${charm}`,
  numUnits: 1,
  to: [],
  options: {},
  expose: false,
  ...rest,
});

const bundleOf = (applications: Record<string, BundleApplication>, rest: Partial<Bundle> = {}): Bundle => ({
  applications: new Map(Object.entries(applications)),
  machines: new Map(),
  relations: [],
  ...rest,
});

const verify = (bundle: Bundle) => verifyBundle(bundle, (name) => charms[bundle.applications.get(name)!.charm.slice(2)]);

describe('bundle verification', () => {
  it('passes a sound bundle', () => {
    const bundle = bundleOf(
      { database: app('database', { numUnits: 2, to: ['0', 'new'] }), client: app('client', { to: ['database/1'] }) },
      { machines: new Map([['0', {}]]), relations: [['client', 'database']] },
    );
    expect(verify(bundle)).toEqual([]);
  });

  it('lists every placement problem', () => {
    const bundle = bundleOf(
      {
        database: app('database', { numUnits: 1, to: ['0', '1'] }),
        client: app('client', { numUnits: 2, to: ['database/5', 'lxd:0'] }),
      },
      {
        machines: new Map([
          ['0', {}],
          ['1', {}],
          ['2', {}],
        ]),
      },
    );
    expect(verify(bundle)).toEqual([
      'too many units specified in unit placement for application "database"',
      'placement "database/5" specifies a unit greater than the 1 unit(s) started by the target application',
      'placement "lxd:0" of application "client": drover machines hold no containers; place the unit on a machine',
      'machine "2" is not referred to by a placement directive',
    ]);
  });

  it('lists every relation problem: missing application, itself, unknown endpoint, twice', () => {
    const bundle = bundleOf(
      { database: app('database'), client: app('client') },
      {
        relations: [
          ['client', 'mysql'],
          ['client', 'client'],
          ['client:nope', 'database'],
          ['client:db', 'database:db'],
          ['database', 'client'],
        ],
      },
    );
    expect(verify(bundle)).toEqual([
      'relation ["client","mysql"] refers to application "mysql" not defined in this bundle',
      'relation ["client","client"] relates an application to itself',
      'cannot relate client:nope and database: application "client" has no "nope" relation',
      'relation ["database","client"] is defined more than once',
    ]);
  });

  it('checks options against the charm and constraints as the controller would', () => {
    const bundle = bundleOf({ database: app('database', { options: { port: 5 }, constraints: 'mem=lots' }) });
    const problems = verify(bundle);
    expect(problems[0]).toMatch(/^invalid constraints "mem=lots" in application "database": .*mem/);
    expect(problems[1]).toBe('cannot validate application "database": unknown option "port"; charm "database" has no config options');
    expect(problems).toHaveLength(2);
  });
});
