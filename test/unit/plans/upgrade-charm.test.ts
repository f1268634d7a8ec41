import { describe, expect, it } from 'vitest';
import { parseCharm } from '#shared/domain/charm.js';
import { sequentialNumbers } from '#shared/domain/sequences.js';
import type { Application, Relation } from '#shared/domain/entities.js';
import { planUpgradeCharm, upgradedConfig, type UpgradeCharmIntent } from '#shared/domain/plans/upgrade-charm.js';
import { charms } from '../../support/charms.js';
import { application, linked, NOW, relation } from './relation-fixtures.js';

/** wordpress, revision 2: a new config option, the same endpoints. */
const wordpress2 = parseCharm(
  `name: wordpress
series: [jammy, focal]
provides:
  url: http
  logging-dir: {interface: logging, scope: container}
requires:
  db: {interface: mysql, limit: 1}
  cache: {interface: varnish, limit: 2}
`,
  `options:
  blog-title: {type: string, default: My Title}
  theme: {type: string, default: plain}
`,
);

const plan = (app: Application | undefined, relations: Relation[], intent: Partial<UpgradeCharmIntent> = {}) =>
  planUpgradeCharm(
    { relations, numbers: sequentialNumbers({ relation: 7 }), ...(app ? { application: app } : {}) },
    { application: 'wordpress', charm: wordpress2, charmArchive: 'sha-2', forceUnits: false, ...intent },
    NOW,
  );

const wp = application('wordpress', { config: { 'blog-title': 'My Title' } });

describe('planUpgradeCharm', () => {
  it('gives the application the new charm, its archive and the next revision, in one update of the application alone', () => {
    const p = plan(wp, []);
    expect(p.result).toEqual({ application: 'wordpress', charmUrl: 'local:jammy/wordpress-1' });
    expect(p.changes).toEqual([
      {
        op: 'update',
        ref: { kind: 'application', name: 'wordpress' },
        set: {
          charm: wordpress2,
          charmUrl: 'local:jammy/wordpress-1',
          charmArchive: 'sha-2',
          forceUnits: false,
          config: { 'blog-title': 'My Title', theme: 'plain' },
          configVersion: 1,
        },
        expect: { life: 'alive', equals: { charmUrl: 'local:jammy/wordpress-0', configVersion: 0 }, setSize: { relations: 0 } },
      },
    ]);
  });

  it('takes the revision after the current one', () => {
    expect(plan({ ...wp, charmUrl: 'local:jammy/wordpress-6' }, []).result.charmUrl).toBe('local:jammy/wordpress-7');
  });

  it('config: keeps what the user set, takes defaults for new options, drops removed options', () => {
    const old = application('wordpress', {
      charm: parseCharm(
        'name: wordpress\n',
        'options:\n  blog-title: {type: string, default: My Title}\n  gone: {type: int, default: 1}\n',
      ),
      config: { 'blog-title': 'Mine', gone: 5 },
    });
    expect(upgradedConfig(old, wordpress2)).toEqual({ 'blog-title': 'Mine', theme: 'plain' });
  });

  it('config: a value left at the old default takes the new default; a value whose option changed type takes the default', () => {
    const old = application('wordpress', {
      charm: parseCharm('name: wordpress\n', 'options:\n  blog-title: {type: string, default: Old}\n  theme: {type: int, default: 1}\n'),
      config: { 'blog-title': 'Old', theme: 3 },
    });
    expect(upgradedConfig(old, wordpress2)).toEqual({ 'blog-title': 'My Title', theme: 'plain' });
  });

  it('does not bump configVersion when the config stays the same', () => {
    const p = plan({ ...wp, charm: wordpress2, config: { 'blog-title': 'My Title', theme: 'plain' } }, []);
    const change = p.changes[0]!;
    expect(change.op === 'update' && change.set).not.toHaveProperty('configVersion');
  });

  it('asserts the relations it checked: their number and every one of them', () => {
    const [w, m] = linked([wp, application('mysql')], [relation([wp, application('mysql')], ['wordpress', 'mysql'], 4)]);
    const db = relation([w!, m!], ['wordpress', 'mysql'], 4);
    const change = plan(w, [db]).changes[0]!;
    expect(change.op === 'update' && change.expect).toMatchObject({ setSize: { relations: 1 }, contains: { relations: [db.key] } });
  });

  it('refuses another charm: `cannot upgrade "wordpress" from charm "wordpress" to "mysql"`', () => {
    expect(() => plan(wp, [], { charm: charms.mysql })).toThrow(
      'cannot upgrade "wordpress" from charm "wordpress" to "mysql": an upgrade keeps the charm\'s name; deploy "mysql" as a new application instead',
    );
  });

  it('--switch takes another charm (revision 0 of a local one), keeping only the resources it declares', () => {
    const resource = (revision: number) => ({ revision, sha256: `s${revision}`, fingerprint: `f${revision}`, size: 1, timestamp: NOW });
    const withResources = { ...wp, resources: { theme: resource(2), logo: resource(1) } };
    const themed = parseCharm(
      'name: themed\nseries: [jammy]\nprovides:\n  url: http\nresources:\n  theme: {type: file, filename: theme.tgz}\n',
    );
    const p = plan(withResources, [], { charm: themed, switch: true });
    expect(p.result.charmUrl).toBe('local:jammy/themed-0');
    const change = p.changes[0]!;
    expect(change.op === 'update' && change.set).toMatchObject({ charm: themed, resources: { theme: resource(2) } });
    // An upload to it becomes the next revision, and its units run upgrade-charm for it.
    const upload = { sha256: 'new', fingerprint: 'new', size: 3, timestamp: NOW };
    const uploaded = plan(withResources, [], { charm: themed, switch: true, uploads: { theme: upload } }).changes[0]!;
    expect(uploaded.op === 'update' && uploaded.set).toMatchObject({
      resources: { theme: { ...upload, revision: 3 } },
      charmModifiedVersion: 1,
    });
  });

  it('refuses a charm that drops an endpoint an existing relation uses: "would break relation"', () => {
    const mysql = application('mysql');
    const db = relation([wp, mysql], ['wordpress', 'mysql'], 4);
    const withoutDb = parseCharm('name: wordpress\nseries: [jammy]\nprovides:\n  url: http\n');
    expect(() => plan(wp, [db], { charm: withoutDb })).toThrow(
      `cannot upgrade application "wordpress" to charm "local:jammy/wordpress-1": would break relation "${db.key}"; remove the relation first`,
    );
  });

  it('refuses a charm whose endpoint keeps its name but changes its interface', () => {
    const db = relation([wp, application('mysql')], ['wordpress', 'mysql'], 4);
    const otherInterface = parseCharm('name: wordpress\nrequires:\n  db: pgsql\n');
    expect(() => plan(wp, [db], { charm: otherInterface })).toThrow('would break relation');
  });

  it('refuses a change of subordinacy', () => {
    const sub = parseCharm('name: wordpress\nsubordinate: true\nrequires:\n  host: {interface: juju-info, scope: container}\n');
    expect(() => plan(wp, [], { charm: sub })).toThrow(
      'cannot upgrade application "wordpress" to charm "local:jammy/wordpress-1": cannot change an application\'s subordinacy',
    );
  });

  it("refuses a charm whose series do not include the application's", () => {
    const focalOnly = parseCharm('name: wordpress\nseries: [focal]\n');
    expect(() => plan(wp, [], { charm: focalOnly })).toThrow(
      'cannot upgrade application "wordpress" to charm "local:jammy/wordpress-1": base "ubuntu@22.04" not supported by charm, the charm supported bases are: ubuntu@20.04',
    );
  });

  it('refuses a Dying application, unless --force-units ("Charm upgrade with force is still allowed on Dying")', () => {
    const dying = { ...wp, life: 'dying' as const };
    expect(() => plan(dying, [])).toThrow(
      'cannot upgrade application "wordpress": application is not alive; use --force-units to upgrade a dying application',
    );
    const forced = plan(dying, [], { forceUnits: true }).changes[0]!;
    expect(forced.op === 'update' && forced.set).toMatchObject({ charmUrl: 'local:jammy/wordpress-1', forceUnits: true });
    expect(forced.op === 'update' && forced.expect?.life).toEqual(['alive', 'dying']);
  });

  it('creates the peer relations the new revision adds, with ids from the sequence, as Juju does', () => {
    const withPeers = parseCharm('name: wordpress\nseries: [jammy]\npeers:\n  cluster: wp-cluster\n  ring: wp-ring\n');
    const app = application('wordpress', { relations: ['wordpress:ring'] });
    const ring: Relation = {
      key: 'wordpress:ring',
      id: 3,
      life: 'alive',
      endpoints: [{ application: 'wordpress', name: 'ring', role: 'peer', interface: 'wp-ring', scope: 'global', required: false }],
      scope: 'global',
      unitCount: 0,
      createdAt: NOW,
    };
    const p = plan(app, [ring], { charm: withPeers });
    expect(p.changes.filter((c) => c.ref.kind !== 'application')).toEqual([
      {
        op: 'create',
        ref: { kind: 'relation', key: 'wordpress:cluster' },
        value: expect.objectContaining({ id: 7, life: 'alive', scope: 'global', unitCount: 0 }),
      },
    ]);
    const update = p.changes.find((c) => c.ref.kind === 'application')!;
    expect(update.op === 'update' && update.addToSet).toEqual({ relations: ['wordpress:cluster'] });
  });

  it('a forced upgrade of a Dying application adds no relation: "New relations fail ... application is not alive"', () => {
    const withPeers = parseCharm('name: wordpress\nseries: [jammy]\npeers:\n  cluster: wp-cluster\n');
    const p = plan({ ...wp, life: 'dying' }, [], { charm: withPeers, forceUnits: true });
    expect(p.changes.map((c) => c.ref.kind)).toEqual(['application']);
  });

  it('refuses an unknown application', () => {
    expect(() => plan(undefined, [])).toThrow('application "wordpress" not found');
  });
});
