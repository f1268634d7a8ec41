// metadata.yaml as Juju 3.6 checks it (internal/charm/meta.go), and the bases of manifest.yaml
// and charmcraft.yaml; messages in Juju's words.
import { describe, expect, it } from 'vitest';
import { charmEndpoints, chooseSeries, parseCharm } from '#shared/domain/charm.js';
import { DroverError } from '#shared/domain/errors.js';

function expectInvalid(fn: () => unknown, message: string) {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(DroverError);
  expect((error as DroverError).code).toBe('invalid-argument');
  expect((error as DroverError).message).toBe(message);
}

// As nrpe and telegraf declare it.
const TELEGRAF = `
name: telegraf
subordinate: true
requires:
  juju-info:
    interface: juju-info
    scope: container
provides:
  prometheus-client: prometheus
`;

describe('reserved relation names, as Juju checks them', () => {
  it("lets a subordinate's container-scoped requirer be named juju-info", () => {
    const meta = parseCharm(TELEGRAF);
    expect(meta.endpoints).toContainEqual({
      name: 'juju-info',
      role: 'requirer',
      interface: 'juju-info',
      scope: 'container',
      required: false,
    });
    // The implicit provider is still there: another subordinate may relate to telegraf.
    expect(
      charmEndpoints(meta)
        .filter((e) => e.name === 'juju-info')
        .map((e) => e.role),
    ).toEqual(['requirer', 'provider']);
  });

  it('lets any juju-* name through for a subordinate container-scoped requirer', () => {
    const names = parseCharm(TELEGRAF.replace('juju-info:\n', 'juju-host:\n')).endpoints.map((e) => e.name);
    expect(names).toContain('juju-host');
  });

  it('still refuses juju-* for a global requirer, or a requirer of a principal', () => {
    expectInvalid(
      () => parseCharm(TELEGRAF.replace('scope: container', 'scope: global')),
      'metadata.yaml: charm "telegraf" using a reserved relation name: "juju-info"',
    );
    expectInvalid(
      () => parseCharm(TELEGRAF.replace('subordinate: true', 'subordinate: false')),
      'metadata.yaml: charm "telegraf" using a reserved relation name: "juju-info"',
    );
  });

  it('exempts charms whose own name starts with juju-', () => {
    const meta = parseCharm('name: juju-qa-test\nprovides:\n  juju-thing: juju-thing\n');
    expect(meta.endpoints[0]).toMatchObject({ name: 'juju-thing', interface: 'juju-thing' });
  });
});

describe('metadata keys Juju checks', () => {
  it('refuses mixing v1 and v2 keys', () => {
    expectInvalid(
      () => parseCharm('name: a\nseries: [focal]\ncontainers:\n  foo: {resource: img}\n'),
      'metadata.yaml: ambiguous metadata: keys "series" cannot be used with "containers"',
    );
    expectInvalid(
      () => parseCharm('name: a\nassumes: [juju]\nmin-juju-version: 2.9.0\n'),
      'metadata.yaml: ambiguous metadata: keys "min-juju-version" cannot be used with "assumes"',
    );
  });

  it('checks min-juju-version against drover’s Juju version, and refuses it with manifest bases', () => {
    expect(parseCharm('name: a\nmin-juju-version: 2.9.0\n').name).toBe('a');
    expectInvalid(
      () => parseCharm('name: a\nmin-juju-version: 4.0.1\n'),
      "charm's min version (4.0.1) is higher than this juju model's version (3.6.12)",
    );
    expectInvalid(() => parseCharm('name: a\nmin-juju-version: soon\n'), 'metadata.yaml: invalid min-juju-version: invalid version "soon"');
    expectInvalid(
      () =>
        parseCharm('name: a\nmin-juju-version: 2.9.0\n', undefined, undefined, { manifest: 'bases: [{name: ubuntu, channel: "22.04"}]\n' }),
      'metadata.yaml: min-juju-version in metadata v2 not valid',
    );
  });

  it('evaluates assumes against a machine model of Juju 3.6.12', () => {
    expect(parseCharm('name: a\nassumes:\n  - juju >= 3.1\n  - any-of: [juju >= 9, juju < 4]\n').name).toBe('a');
    expectInvalid(
      () => parseCharm('name: a\nassumes:\n  - juju >= 3.7\n'),
      'Charm feature requirements cannot be met:\n  - charm requires all of the following:\n    - charm requires feature "juju" (version >= 3.7) but model currently supports version 3.6.12',
    );
    expectInvalid(
      () => parseCharm('name: a\nassumes:\n  - k8s-api\n'),
      'Charm feature requirements cannot be met:\n  - charm requires all of the following:\n    - charm requires feature "k8s-api" but model does not support it',
    );
  });

  it('tolerates what a machine model tolerates: resources, extra-bindings, tags, terms, containers', () => {
    const meta = parseCharm(
      'name: a\nresources:\n  bin: {type: file, filename: bin.tgz}\nextra-bindings: {public: }\ntags: [db]\nterms: [x]\ncontainers:\n  c: {resource: bin}\n',
    );
    expect(meta.name).toBe('a');
  });

  it('checks storage as Juju does', () => {
    expect(parseCharm('name: a\nstorage:\n  data: {type: filesystem, location: /srv, multiple: {range: 1-3}}\n').name).toBe('a');
    expectInvalid(
      () => parseCharm('name: a\nstorage:\n  data: {location: /srv}\n'),
      'metadata.yaml: charm "a" storage "data": type must be specified',
    );
    expectInvalid(
      () => parseCharm('name: a\nstorage:\n  disk: {type: block, location: /srv}\n'),
      'metadata.yaml: charm "a" storage "disk": location may not be specified for "type: block"',
    );
    expectInvalid(() => parseCharm('name: a\nstorage:\n  d: {type: tape}\n'), 'metadata.yaml: storage.d.type: unexpected value "tape"');
    expectInvalid(
      () => parseCharm('name: a\nstorage:\n  d: {type: block, multiple: {range: lots}}\n'),
      `metadata.yaml: storage.d.multiple.range: value "lots" does not match 'm', 'm-n', or 'm+'`,
    );
    expectInvalid(
      () => parseCharm('name: a\nstorage:\n  d: {type: block, multiple: {range: 2-0}}\n'),
      'metadata.yaml: charm "a" storage "d": invalid maximum count 0',
    );
  });

  it('checks devices as Juju does', () => {
    expect(parseCharm('name: a\ndevices:\n  gpu: {type: nvidia.com/gpu, countmin: 1, countmax: 2}\n').name).toBe('a');
    expectInvalid(
      () => parseCharm('name: a\ndevices:\n  gpu: {countmin: 1}\n'),
      'metadata.yaml: charm "a" device "gpu": type must be specified',
    );
    expectInvalid(
      () => parseCharm('name: a\ndevices:\n  gpu: {type: x, countmin: 3, countmax: 2}\n'),
      'metadata.yaml: charm "a" device "gpu": maximum count 2 can not be smaller than minimum count 3',
    );
  });

  it('checks extra-bindings as Juju does', () => {
    expect(parseCharm('name: a\nprovides:\n  db: mysql\nextra-bindings:\n  cluster:\n').name).toBe('a');
    expectInvalid(
      () => parseCharm('name: a\nprovides:\n  db: mysql\n  admin: http\nextra-bindings:\n  db:\n  admin:\n  foo:\n'),
      'metadata.yaml: charm "a" has invalid extra bindings: relation names (admin, db) cannot be used in extra bindings',
    );
    expectInvalid(
      () => parseCharm('name: a\nextra-bindings: {}\n'),
      'metadata.yaml: charm "a" has invalid extra bindings: extra bindings cannot be empty when specified',
    );
  });

  it("keeps Juju's subordinate rule", () => {
    expectInvalid(
      () => parseCharm('name: s\nsubordinate: true\nrequires:\n  host: {interface: x}\n'),
      'metadata.yaml: subordinate charm "s" lacks "requires" relation with container scope',
    );
  });
});

describe('bases', () => {
  it('takes the series of manifest.yaml bases when metadata.yaml has none', () => {
    const meta = parseCharm('name: a\n', undefined, undefined, {
      manifest: 'bases:\n  - name: ubuntu\n    channel: "22.04"\n    architectures: [amd64]\n  - {name: ubuntu, channel: "24.04"}\n',
    });
    expect(meta.series).toEqual(['jammy', 'noble']);
  });

  it("takes charmcraft.yaml's base, short bases and long run-on bases", () => {
    expect(parseCharm('name: a\n', undefined, undefined, { charmcraft: 'type: charm\nbase: ubuntu@24.04\n' }).series).toEqual(['noble']);
    expect(parseCharm('name: a\n', undefined, undefined, { charmcraft: 'bases: [{name: ubuntu, channel: "20.04"}]\n' }).series).toEqual([
      'focal',
    ]);
    const long =
      'bases:\n  - build-on: [{name: ubuntu, channel: "22.04"}]\n    run-on: [{name: ubuntu, channel: "22.04"}, {name: ubuntu, channel: "20.04"}]\n';
    expect(parseCharm('name: a\n', undefined, undefined, { charmcraft: long }).series).toEqual(['jammy', 'focal']);
  });

  it('prefers manifest.yaml to metadata series, as Juju computes bases', () => {
    const meta = parseCharm('name: a\nseries: [focal]\n', undefined, undefined, {
      manifest: 'bases: [{name: ubuntu, channel: "22.04"}]\n',
    });
    expect(meta.series).toEqual(['jammy']);
  });

  it('refuses bases drover cannot run', () => {
    expectInvalid(
      () => parseCharm('name: a\n', undefined, undefined, { manifest: 'bases: [{name: ubuntu, channel: "99.04"}]\n' }),
      'manifest.yaml: unknown series for version: "99.04"',
    );
    expectInvalid(
      () => parseCharm('name: a\n', undefined, undefined, { manifest: 'bases: [{name: centos, channel: "7"}]\n' }),
      'manifest.yaml: base "centos@7" not supported: drover runs Ubuntu machines only',
    );
    expectInvalid(
      () => parseCharm('name: a\n', undefined, undefined, { charmcraft: 'base: ubuntu-22.04\n' }),
      `charmcraft.yaml: "base" expected base string to contain os and channel separated by '@'`,
    );
  });

  it("refuses a requested series outside the charm's bases in Juju 3's words", () => {
    const meta = parseCharm('name: a\n', undefined, undefined, {
      manifest: 'bases: [{name: ubuntu, channel: "22.04"}, {name: ubuntu, channel: "24.04"}]\n',
    });
    expect(chooseSeries(meta, 'noble')).toBe('noble');
    expectInvalid(
      () => chooseSeries(meta, 'focal'),
      'base "ubuntu@20.04" not supported by charm, the charm supported bases are: ubuntu@22.04, ubuntu@24.04',
    );
  });
});
