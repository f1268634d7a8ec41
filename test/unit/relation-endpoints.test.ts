import { describe, expect, it } from 'vitest';
import { charmEndpoints, parseCharm } from '#shared/domain/charm.js';
import { DroverError } from '#shared/domain/errors.js';
import {
  inferRelation,
  parseEndpointArg,
  relationKey,
  relationScope,
  type AppEndpoints,
  type RelationEndpoint,
} from '#shared/domain/relation-endpoints.js';

// Metadata shaped after Juju's testcharms/charm-repo/quantal charms.
const CHARMS = {
  wordpress: `name: wordpress
provides:
  url: http
  logging-dir: {interface: logging, scope: container}
requires:
  db: {interface: mysql, limit: 1, required: true}
  cache: {interface: varnish, limit: 2, optional: true}
`,
  mysql: 'name: mysql\nprovides:\n  server: mysql\n',
  riak: 'name: riak\nprovides:\n  endpoint: http\n  admin: http\npeers:\n  ring: riak\n',
  logging: `name: logging
subordinate: true
provides:
  logging-client: logging
requires:
  logging-directory: {interface: logging, scope: container}
  info: {interface: juju-info, scope: container}
`,
  // Same endpoints as logging, but a principal: container relations to it need another subordinate.
  'logging-principal': `name: logging-principal
provides:
  logging-client: logging
requires:
  logging-directory: {interface: logging, scope: container}
  info: {interface: juju-info, scope: container}
`,
  // A subordinate that only wants to sit next to any principal.
  ntp: 'name: ntp\nsubordinate: true\nrequires:\n  info: {interface: juju-info, scope: container}\n',
  // Two subordinates that talk inside their principal's container (required-relations-proposal.txt,
  // "contained").
  'log-shipper': `name: log-shipper
subordinate: true
requires:
  info: {interface: juju-info, scope: container}
  logs: {interface: logging, scope: container}
`,
  wp: 'name: wp\nrequires:\n  db: mysql\n',
  ms: 'name: ms\nprovides:\n  dev: mysql\n  prod: mysql\n',
  twin: 'name: twin\npeers:\n  left: twin\n  right: twin\n',
} as const;

type CharmName = keyof typeof CHARMS;

function model(deployed: Record<string, { charm: CharmName; series?: string }>) {
  return (name: string): AppEndpoints | undefined => {
    const app = deployed[name];
    if (!app) return undefined;
    const meta = parseCharm(CHARMS[app.charm]);
    return { application: name, series: app.series ?? 'quantal', subordinate: meta.subordinate, endpoints: charmEndpoints(meta) };
  };
}

const apps = model({
  wordpress: { charm: 'wordpress' },
  mysql: { charm: 'mysql', series: 'precise' },
  riak: { charm: 'riak' },
  logging: { charm: 'logging' },
  'logging-principal': { charm: 'logging-principal' },
  ntp: { charm: 'ntp' },
  'log-shipper': { charm: 'log-shipper' },
  wp: { charm: 'wp' },
  ms: { charm: 'ms' },
  twin: { charm: 'twin' },
  'old-logging': { charm: 'logging', series: 'precise' },
});

const infer = (...args: string[]) => inferRelation(args, apps);
const keyOf = (...args: string[]) => relationKey(infer(...args));

function rejection(fn: () => unknown): DroverError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DroverError) return e;
    throw e;
  }
  throw new Error('expected a DroverError, but nothing was thrown');
}

const ep = (
  application: string,
  name: string,
  role: RelationEndpoint['role'],
  scope: RelationEndpoint['scope'] = 'global',
): RelationEndpoint => ({
  application,
  name,
  role,
  interface: 'x',
  scope,
  required: false,
});

describe('parseEndpointArg', () => {
  it.each([
    ['wordpress', { application: 'wordpress' }],
    ['wordpress:db', { application: 'wordpress', endpoint: 'db' }],
    ['logging:juju-info', { application: 'logging', endpoint: 'juju-info' }],
  ])('reads "%s"', (arg, expected) => {
    expect(parseEndpointArg(arg)).toEqual(expected);
  });

  it.each(['', ':db', 'wordpress:', 'a:b:c', 'WordPress', 'wordpress:DB', 'foo-1'])('rejects "%s" and shows the accepted forms', (arg) => {
    const error = rejection(() => parseEndpointArg(arg));
    expect(error.code).toBe('invalid-argument');
    expect(error.message).toBe(`invalid endpoint "${arg}"; use <application> or <application>:<endpoint>`);
  });
});

describe('relationKey', () => {
  it.each([
    ['a requirer before a provider', [ep('mysql', 'server', 'provider'), ep('wordpress', 'db', 'requirer')], 'wordpress:db mysql:server'],
    [
      'the subordinate requirer first for juju-info',
      [ep('wordpress', 'juju-info', 'provider'), ep('logging', 'info', 'requirer')],
      'logging:info wordpress:juju-info',
    ],
    ['a peer alone', [ep('riak', 'ring', 'peer')], 'riak:ring'],
    ['ties by app:endpoint', [ep('b', 'x', 'peer'), ep('a', 'y', 'peer')], 'a:y b:x'],
  ])('orders %s', (_, endpoints, key) => {
    expect(relationKey(endpoints)).toBe(key);
  });

  it('does not reorder its argument', () => {
    const endpoints = [ep('mysql', 'server', 'provider'), ep('wordpress', 'db', 'requirer')];
    relationKey(endpoints);
    expect(endpoints[0]?.application).toBe('mysql');
  });
});

describe('relationScope', () => {
  it.each([
    ['global when both ends are global', [ep('a', 'x', 'requirer'), ep('b', 'y', 'provider')], 'global'],
    ['container when either end is container-scoped', [ep('a', 'x', 'requirer', 'container'), ep('b', 'y', 'provider')], 'container'],
    ['global for a peer', [ep('riak', 'ring', 'peer')], 'global'],
  ])('is %s', (_, endpoints, scope) => {
    expect(relationScope(endpoints)).toBe(scope);
  });
});

describe('inferRelation', () => {
  it('finds the one matching pair of two applications', () => {
    expect(infer('wordpress', 'mysql')).toEqual([
      { application: 'wordpress', name: 'db', role: 'requirer', interface: 'mysql', scope: 'global', limit: 1, required: true },
      { application: 'mysql', name: 'server', role: 'provider', interface: 'mysql', scope: 'global', required: false },
    ]);
  });

  it('gives the same relation whichever application is named first', () => {
    expect(keyOf('mysql', 'wordpress')).toBe('wordpress:db mysql:server');
  });

  it('accepts explicit endpoints that match', () => {
    expect(keyOf('wordpress:db', 'mysql:server')).toBe('wordpress:db mysql:server');
  });

  it('accepts one explicit endpoint and infers the other', () => {
    expect(keyOf('mysql', 'wordpress:db')).toBe('wordpress:db mysql:server');
  });

  it('allows a global relation between applications of different series', () => {
    expect(relationScope(infer('wordpress', 'mysql'))).toBe('global');
  });

  it('finds the peer relation of a single application', () => {
    expect(infer('riak')).toEqual([
      { application: 'riak', name: 'ring', role: 'peer', interface: 'riak', scope: 'global', required: false },
    ]);
  });

  it('finds an explicitly named peer relation', () => {
    expect(keyOf('riak:ring')).toBe('riak:ring');
  });

  it('prefers an explicit interface match over juju-info', () => {
    expect(keyOf('logging', 'wordpress')).toBe('logging:logging-directory wordpress:logging-dir');
  });

  it('makes a relation to a container-scoped endpoint container-scoped', () => {
    expect(relationScope(infer('logging', 'wordpress'))).toBe('container');
  });

  it('matches a container-scoped juju-info requirer with the implicit juju-info provider', () => {
    expect(keyOf('logging:info', 'wordpress')).toBe('logging:info wordpress:juju-info');
  });

  it('falls back to juju-info when it is the only match', () => {
    expect(keyOf('riak', 'ntp')).toBe('ntp:info riak:juju-info');
  });

  it('gives both ends of a juju-info relation container scope', () => {
    expect(infer('ntp', 'wordpress').map((e) => e.scope)).toEqual(['container', 'container']);
  });

  it('allows a container-scoped relation between two subordinates', () => {
    expect(keyOf('log-shipper:logs', 'logging')).toBe('log-shipper:logs logging:logging-client');
  });

  it("carries each endpoint's limit and required flag for the state layer", () => {
    const [db] = infer('wordpress', 'mysql');
    expect(db).toMatchObject({ limit: 1, required: true });
  });

  describe('errors', () => {
    it.each([
      ['an unknown application', ['wooble', 'mysql'], 'not-found', 'application "wooble" not found'],
      ['an unknown second application', ['wordpress', 'wooble'], 'not-found', 'application "wooble" not found'],
      ['an unknown endpoint', ['wordpress:nope', 'mysql'], 'not-found', 'application "wordpress" has no "nope" relation'],
      [
        'a malformed argument',
        ['wordpress:', 'mysql'],
        'invalid-argument',
        'invalid endpoint "wordpress:"; use <application> or <application>:<endpoint>',
      ],
      ['no arguments', [], 'invalid-argument', 'cannot relate 0 endpoints'],
      ['three applications', ['wordpress', 'mysql', 'riak'], 'invalid-argument', 'cannot relate 3 endpoints'],
      ['applications with nothing in common', ['wordpress', 'riak'], 'invalid-argument', 'no relations found'],
      ['a single application without peers', ['mysql'], 'invalid-argument', 'no relations found'],
      ['a single non-peer endpoint', ['wordpress:db'], 'invalid-argument', 'no relations found'],
      ['a peer endpoint paired with another application', ['riak:ring', 'wordpress'], 'invalid-argument', 'no relations found'],
      ['an explicit endpoint with no match', ['wordpress:cache', 'mysql'], 'invalid-argument', 'no relations found'],
      ['explicit endpoints that do not match', ['wordpress:url', 'mysql:server'], 'invalid-argument', 'endpoints do not relate'],
      ['explicit endpoints with the same role', ['wordpress:url', 'riak:endpoint'], 'invalid-argument', 'endpoints do not relate'],
      [
        'more than one match',
        ['ms', 'wp'],
        'invalid-argument',
        'ambiguous relation: "ms wp" could refer to "wp:db ms:dev"; "wp:db ms:prod"',
      ],
      ['more than one peer relation', ['twin'], 'invalid-argument', 'ambiguous relation: "twin" could refer to "twin:left"; "twin:right"'],
      [
        'an application related to itself',
        ['wordpress', 'wordpress'],
        'invalid-argument',
        'cannot relate application "wordpress" to itself; peer relations are declared in the charm and created at deploy',
      ],
      [
        'a peer endpoint related to itself',
        ['riak:ring', 'riak:ring'],
        'invalid-argument',
        'cannot relate application "riak" to itself; peer relations are declared in the charm and created at deploy',
      ],
      [
        'a container-scoped relation between principals',
        ['logging-principal', 'wordpress'],
        'invalid-argument',
        'container scoped relation requires at least one subordinate application',
      ],
      [
        'a container-scoped juju-info relation between principals',
        ['logging-principal:info', 'mysql'],
        'invalid-argument',
        'container scoped relation requires at least one subordinate application',
      ],
      [
        'a container-scoped relation across series',
        ['old-logging', 'wordpress'],
        'invalid-argument',
        "principal and subordinate applications' series must match",
      ],
      [
        'a juju-info relation across series',
        ['ntp', 'mysql:juju-info'],
        'invalid-argument',
        "principal and subordinate applications' series must match",
      ],
    ])('rejects %s', (_, args, code, message) => {
      const error = rejection(() => inferRelation(args, apps));
      expect({ code: error.code, message: error.message }).toEqual({ code, message });
    });
  });
});
