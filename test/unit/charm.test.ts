import { describe, expect, it } from 'vitest';
import { charmEndpoints, chooseSeries, configDefaults, parseCharm, parseConfigValues, type CharmMeta } from '#shared/domain/charm.js';
import { DroverError } from '#shared/domain/errors.js';

// Shaped after Juju's testcharms/charm-repo/quantal charms.
const WORDPRESS = `
name: wordpress
summary: "Blog engine"
description: "A pretty popular blog engine"
series: [precise, trusty]
provides:
  url:
    interface: http
    limit:
    optional: false
  logging-dir:
    interface: logging
    scope: container
requires:
  db:
    interface: mysql
    limit: 1
    required: true
  cache:
    interface: varnish
    limit: 2
    optional: true
extra-bindings:
  db-client:
`;
const WORDPRESS_CONFIG = `
options:
  blog-title: {default: My Title, description: A descriptive title used for the blog., type: string}
`;
const LOGGING = `
name: logging
summary: "Subordinate logging test charm"
subordinate: true
provides:
  logging-client: logging
requires:
  logging-directory:
    interface: logging
    scope: container
  info:
    interface: juju-info
    scope: container
`;
const DUMMY_CONFIG = `
options:
  title: {default: My Title, description: A descriptive title, type: string}
  outlook: {description: No default outlook.}
  username: {default: admin001, type: string}
  skill-level: {description: A number indicating skill., type: int}
  ratio: {default: 1, type: float}
  enabled: {default: true, type: boolean}
`;

function rejection(fn: () => unknown): DroverError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DroverError) return e;
    throw e;
  }
  throw new Error('expected a DroverError, but nothing was thrown');
}

function expectInvalid(fn: () => unknown, message: string) {
  const error = rejection(fn);
  expect(error.code).toBe('invalid-argument');
  expect(error.message).toBe(message);
}

const dummy = (config = DUMMY_CONFIG) => parseCharm('name: dummy\n', config);

describe('parseCharm: metadata.yaml', () => {
  it('reads name, summary, description, series and subordinate', () => {
    const meta = parseCharm(WORDPRESS);
    expect(meta).toMatchObject({
      name: 'wordpress',
      summary: 'Blog engine',
      description: 'A pretty popular blog engine',
      series: ['precise', 'trusty'],
      subordinate: false,
    });
  });

  it('reads provides, requires and peers as endpoints with their roles', () => {
    expect(parseCharm(WORDPRESS).endpoints).toEqual([
      { name: 'url', role: 'provider', interface: 'http', scope: 'global', required: false },
      { name: 'logging-dir', role: 'provider', interface: 'logging', scope: 'container', required: false },
      { name: 'db', role: 'requirer', interface: 'mysql', scope: 'global', limit: 1, required: true },
      { name: 'cache', role: 'requirer', interface: 'varnish', scope: 'global', limit: 2, required: false },
    ]);
  });

  it('reads the shorthand `name: interface` as a global endpoint', () => {
    expect(parseCharm('name: mysql\nprovides:\n  server: mysql\n').endpoints).toEqual([
      { name: 'server', role: 'provider', interface: 'mysql', scope: 'global', required: false },
    ]);
  });

  it('reads peers', () => {
    expect(parseCharm('name: riak\npeers:\n  ring:\n    interface: riak\n').endpoints).toEqual([
      { name: 'ring', role: 'peer', interface: 'riak', scope: 'global', required: false },
    ]);
  });

  it('reads a subordinate charm with a container-scoped requires', () => {
    const meta = parseCharm(LOGGING);
    expect(meta.subordinate).toBe(true);
    expect(meta.endpoints.map((e) => [e.name, e.role, e.scope])).toEqual([
      ['logging-client', 'provider', 'global'],
      ['logging-directory', 'requirer', 'container'],
      ['info', 'requirer', 'container'],
    ]);
  });

  it('defaults series to none, subordinate to false and config to empty', () => {
    expect(parseCharm('name: dummy\n')).toEqual({ name: 'dummy', series: [], subordinate: false, endpoints: [], config: {} });
  });

  it('ignores unknown top-level keys such as tags and storage', () => {
    expect(parseCharm('name: dummy\ntags: [misc]\nstorage: {data: {type: filesystem}}\n').name).toBe('dummy');
  });

  it("treats an empty limit, as in Juju's wordpress, as no limit", () => {
    expect(parseCharm(WORDPRESS).endpoints[0]).not.toHaveProperty('limit');
  });

  it('treats empty sections as no endpoints', () => {
    expect(parseCharm('name: dummy\nprovides:\nrequires:\npeers:\n').endpoints).toEqual([]);
  });

  it.each([
    ['bad YAML', 'name: [dummy\n', /^metadata\.yaml: invalid YAML: Flow sequence .* at line 2, column 1:$/],
    ['duplicate YAML keys', 'name: a\nname: b\n', /^metadata\.yaml: invalid YAML: Map keys must be unique at line 2, column 1:$/],
  ])('rejects %s naming the file and the parser message', (_, yaml, message) => {
    const error = rejection(() => parseCharm(yaml));
    expect(error.code).toBe('invalid-argument');
    expect(error.message).toMatch(message);
  });

  it.each([
    ['an empty file', '', 'metadata.yaml: must be a YAML mapping'],
    ['a list document', '- name\n', 'metadata.yaml: must be a YAML mapping'],
    ['a missing name', 'summary: x\n', 'metadata.yaml: "name" is required'],
    ['a non-string name', 'name: 3\n', 'metadata.yaml: "name" must be a string'],
    ['a non-string summary', 'name: d\nsummary: [x]\n', 'metadata.yaml: "summary" must be a string'],
    ['series given as a string', 'name: d\nseries: trusty\n', 'metadata.yaml: "series" must be a list of series names'],
    ['a non-string series entry', 'name: d\nseries: [trusty, 7]\n', 'metadata.yaml: "series[1]" must be a string'],
    [
      'a malformed series name',
      'name: d\nseries: [Trusty]\n',
      'metadata.yaml: "series[0]" must be a series name like "jammy", got "Trusty"',
    ],
    ['a non-boolean subordinate', 'name: d\nsubordinate: yes\n', 'metadata.yaml: "subordinate" must be true or false'],
    ['provides as a list', 'name: d\nprovides: [db]\n', 'metadata.yaml: "provides" must be a mapping of endpoint name to interface'],
    [
      'an endpoint that is a number',
      'name: d\nprovides:\n  db: 3\n',
      'metadata.yaml: "provides.db" must be an interface name or a mapping with an "interface" key',
    ],
    ['an endpoint without interface', 'name: d\nrequires:\n  db: {limit: 1}\n', 'metadata.yaml: "requires.db.interface" is required'],
    ['an empty interface', 'name: d\nrequires:\n  db: ""\n', 'metadata.yaml: "requires.db.interface" must not be empty'],
    [
      'an unknown scope',
      'name: d\nrequires:\n  db: {interface: mysql, scope: contained}\n',
      'metadata.yaml: "requires.db.scope" must be "global" or "container"',
    ],
    [
      'a string limit',
      'name: d\nprovides:\n  db: {interface: mysql, limit: one}\n',
      'metadata.yaml: "provides.db.limit" must be an integer',
    ],
    [
      'a fractional limit',
      'name: d\nprovides:\n  db: {interface: mysql, limit: 1.5}\n',
      'metadata.yaml: "provides.db.limit" must be an integer',
    ],
    [
      'a zero limit',
      'name: d\nprovides:\n  db: {interface: mysql, limit: 0}\n',
      'metadata.yaml: "provides.db.limit" must be a positive integer',
    ],
    [
      'a non-boolean optional',
      'name: d\nrequires:\n  db: {interface: mysql, optional: maybe}\n',
      'metadata.yaml: "requires.db.optional" must be true or false',
    ],
    [
      'a non-boolean required',
      'name: d\nrequires:\n  db: {interface: mysql, required: "yes"}\n',
      'metadata.yaml: "requires.db.required" must be true or false',
    ],
  ])('rejects %s, naming the file and the field', (_, yaml, message) => {
    expectInvalid(() => parseCharm(yaml), message);
  });

  it('rejects an invalid charm name', () => {
    expectInvalid(
      () => parseCharm('name: Word_Press\n'),
      'metadata.yaml: "name" must be a valid charm name (lowercase letters, digits and hyphens, starting with a letter), got "Word_Press"',
    );
  });

  it('rejects an invalid endpoint name', () => {
    expectInvalid(
      () => parseCharm('name: x\nprovides:\n  Bad_Name: http\n'),
      'metadata.yaml: charm "x" has an invalid relation name in "provides": "Bad_Name" (use lowercase letters, digits and single hyphens, starting with a letter)',
    );
  });

  it.each([
    ['provides', 'juju-foo'],
    ['requires', 'juju'],
    ['peers', 'juju-info'],
  ])('rejects the reserved relation name in %s: %s', (section, name) => {
    expectInvalid(
      () => parseCharm(`name: x\n${section}:\n  ${name}: foo\n`),
      `metadata.yaml: charm "x" using a reserved relation name: "${name}"`,
    );
  });

  it('rejects the same endpoint name in two sections', () => {
    expectInvalid(
      () => parseCharm('name: x\nprovides:\n  db: mysql\nrequires:\n  db: mysql\n'),
      'metadata.yaml: charm "x" using a duplicated relation name: "db"',
    );
  });

  it('rejects providing a reserved interface', () => {
    expectInvalid(
      () => parseCharm('name: x\nprovides:\n  info: juju-info\n'),
      'metadata.yaml: charm "x" relation "info" using a reserved interface: "juju-info"',
    );
  });

  it('allows requiring the juju-info interface', () => {
    expect(parseCharm(LOGGING).endpoints.find((e) => e.name === 'info')?.interface).toBe('juju-info');
  });

  it('rejects a container-scoped peer relation', () => {
    expectInvalid(
      () => parseCharm('name: riak\npeers:\n  ring: {interface: riak, scope: container}\n'),
      'metadata.yaml: charm "riak" peer relation "ring" cannot have container scope; remove "scope: container"',
    );
  });

  it('rejects a required peer relation', () => {
    expectInvalid(
      () => parseCharm('name: riak\npeers:\n  ring: {interface: riak, required: true}\n'),
      'metadata.yaml: charm "riak" peer relation "ring" cannot be required; peer relations are created at deploy',
    );
  });

  it('rejects a relation that is both optional and required', () => {
    expectInvalid(
      () => parseCharm('name: x\nrequires:\n  db: {interface: mysql, optional: true, required: true}\n'),
      'metadata.yaml: charm "x" relation "db" cannot be both optional and required',
    );
  });

  it('rejects a subordinate charm without a container-scoped requires', () => {
    expectInvalid(
      () =>
        parseCharm(
          'name: dummy\nsubordinate: true\nrequires:\n  info: juju-info\nprovides:\n  out: {interface: logging, scope: container}\n',
        ),
      'metadata.yaml: subordinate charm "dummy" lacks "requires" relation with container scope',
    );
  });
});

describe('parseCharm: config.yaml', () => {
  it('reads options with type, default and description', () => {
    expect(parseCharm(WORDPRESS, WORDPRESS_CONFIG).config).toEqual({
      'blog-title': { type: 'string', default: 'My Title', description: 'A descriptive title used for the blog.' },
    });
  });

  it('treats an option without a type as a string, as Juju does', () => {
    expect(dummy().config['outlook']).toEqual({ type: 'string', description: 'No default outlook.' });
  });

  it('accepts an int default for a float option', () => {
    expect(dummy().config['ratio']).toEqual({ type: 'float', default: 1 });
  });

  it.each([
    ['an empty file', ''],
    ['no options key', 'other: 1\n'],
    ['empty options', 'options:\n'],
  ])('reads %s as no options', (_, yaml) => {
    expect(dummy(yaml).config).toEqual({});
  });

  it('rejects bad YAML naming config.yaml', () => {
    expect(rejection(() => dummy('options: [\n')).message).toMatch(/^config\.yaml: invalid YAML: /);
  });

  it.each([
    ['a list document', '- a\n', 'config.yaml: must be a YAML mapping'],
    ['options as a list', 'options: [a]\n', 'config.yaml: "options" must be a mapping of option name to option'],
    [
      'an option that is a string',
      'options:\n  title: hello\n',
      'config.yaml: "options.title" must be a mapping with "type", "default" and "description"',
    ],
    [
      'an unknown type',
      'options:\n  title: {type: text}\n',
      'config.yaml: "options.title.type" must be one of string, int, float, boolean',
    ],
    ['a non-string description', 'options:\n  title: {description: [a]}\n', 'config.yaml: "options.title.description" must be a string'],
    [
      'a string default for an int',
      'options:\n  n: {type: int, default: "3"}\n',
      'config.yaml: "options.n.default" must be an int to match the option\'s type, got "3"',
    ],
    [
      'a float default for an int',
      'options:\n  n: {type: int, default: 1.5}\n',
      'config.yaml: "options.n.default" must be an int to match the option\'s type, got 1.5',
    ],
    [
      'a string default for a float',
      'options:\n  r: {type: float, default: half}\n',
      'config.yaml: "options.r.default" must be a float to match the option\'s type, got "half"',
    ],
    [
      'a string default for a boolean',
      'options:\n  b: {type: boolean, default: "yes"}\n',
      'config.yaml: "options.b.default" must be a boolean to match the option\'s type, got "yes"',
    ],
    [
      'a number default for a string',
      'options:\n  s: {default: 80}\n',
      'config.yaml: "options.s.default" must be a string to match the option\'s type, got 80',
    ],
  ])('rejects %s, naming the file and the field', (_, yaml, message) => {
    expectInvalid(() => dummy(yaml), message);
  });
});

describe('charmEndpoints', () => {
  it('adds the implicit global juju-info provider to the declared endpoints', () => {
    const meta = parseCharm('name: mysql\nprovides:\n  server: mysql\n');
    expect(charmEndpoints(meta)).toEqual([
      { name: 'server', role: 'provider', interface: 'mysql', scope: 'global', required: false },
      { name: 'juju-info', role: 'provider', interface: 'juju-info', scope: 'global', required: false },
    ]);
  });

  it('does not add juju-info to the declared endpoints', () => {
    const meta = parseCharm('name: dummy\n');
    charmEndpoints(meta);
    expect(meta.endpoints).toEqual([]);
  });
});

describe('configDefaults', () => {
  it('returns the options that have defaults, typed', () => {
    expect(configDefaults(dummy())).toEqual({ title: 'My Title', username: 'admin001', ratio: 1, enabled: true });
  });
});

describe('parseConfigValues (`config k=v`)', () => {
  it.each([
    ['title', 'Hello World', 'Hello World'],
    ['title', '', ''],
    ['skill-level', '42', 42],
    ['skill-level', '-7', -7],
    ['ratio', '0.25', 0.25],
    ['ratio', '3', 3],
    ['ratio', '1e3', 1000],
    ['enabled', 'false', false],
    ['enabled', 'True', true],
    ['enabled', '1', true],
  ])('converts %s=%j to its option type', (key, raw, value) => {
    expect(parseConfigValues(dummy(), { [key]: raw })).toEqual({ [key]: value });
  });

  it('converts several assignments at once', () => {
    expect(parseConfigValues(dummy(), { title: 'x', 'skill-level': '3' })).toEqual({ title: 'x', 'skill-level': 3 });
  });

  it('rejects an unknown key, naming the valid keys', () => {
    expectInvalid(
      () => parseConfigValues(dummy(), { titel: 'x' }),
      'unknown option "titel"; valid options for charm "dummy" are: enabled, outlook, ratio, skill-level, title, username',
    );
  });

  it('rejects inherited object properties as unknown keys', () => {
    expect(rejection(() => parseConfigValues(dummy(), { constructor: 'x' })).message).toMatch(/^unknown option "constructor"/);
  });

  it('rejects any key for a charm without options', () => {
    expectInvalid(() => parseConfigValues(dummy(''), { title: 'x' }), 'unknown option "title"; charm "dummy" has no config options');
  });

  it.each([
    ['skill-level', 'high', 'option "skill-level" expected int, got "high"; use a whole number such as 42'],
    ['skill-level', '1.5', 'option "skill-level" expected int, got "1.5"; use a whole number such as 42'],
    ['skill-level', '', 'option "skill-level" expected int, got ""; use a whole number such as 42'],
    ['skill-level', '99999999999999999999', 'option "skill-level" expected int, got "99999999999999999999"; use a whole number such as 42'],
    ['ratio', 'half', 'option "ratio" expected float, got "half"; use a number such as 0.5'],
    ['ratio', 'Infinity', 'option "ratio" expected float, got "Infinity"; use a number such as 0.5'],
    ['ratio', '0x10', 'option "ratio" expected float, got "0x10"; use a number such as 0.5'],
    ['enabled', 'yes', 'option "enabled" expected boolean, got "yes"; use true or false'],
  ])('rejects %s=%j with a clear message', (key, raw, message) => {
    expectInvalid(() => parseConfigValues(dummy(), { [key]: raw }), message);
  });
});

describe('chooseSeries', () => {
  const charm = (series: string[]): CharmMeta => ({ name: 'wordpress', series, subordinate: false, endpoints: [], config: {} });

  it.each([
    ['the requested series when the charm supports it', ['precise', 'trusty'], 'trusty', 'precise', 'trusty'],
    ['the requested series when the charm lists none', [], 'quantal', undefined, 'quantal'],
    ['the model default series when the charm supports it', ['precise', 'trusty'], undefined, 'trusty', 'trusty'],
    ['the model default series when the charm lists none', [], undefined, 'quantal', 'quantal'],
    ['the first listed series when the default is unsupported', ['precise', 'trusty'], undefined, 'xenial', 'precise'],
    ['the first listed series when there is no default', ['precise', 'trusty'], undefined, undefined, 'precise'],
  ])('chooses %s', (_, series, requested, defaultSeries, expected) => {
    expect(chooseSeries(charm(series), requested, defaultSeries)).toBe(expected);
  });

  it('rejects a requested series the charm does not support', () => {
    expectInvalid(
      () => chooseSeries(charm(['precise', 'trusty']), 'quantal'),
      'base "ubuntu@12.10" not supported by charm, the charm supported bases are: ubuntu@12.04, ubuntu@14.04',
    );
  });

  it('asks for --series when neither the charm nor the model names one', () => {
    expectInvalid(
      () => chooseSeries(charm([])),
      'series not specified and charm "wordpress" does not declare any; deploy with --series <series>',
    );
  });
});
