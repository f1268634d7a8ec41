import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  CONSTRAINT_KEYS,
  CONSTRAINTS_HELP,
  type Constraints,
  formatConstraints,
  isEmptyConstraints,
  mergeConstraints,
  parseConstraints,
} from '#shared/domain/constraints.js';
import { DroverError } from '#shared/domain/errors.js';

function parseError(args: string | string[]): DroverError {
  try {
    parseConstraints(args);
  } catch (e) {
    if (e instanceof DroverError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(args)} to fail`);
}

describe('parseConstraints: accepted values', () => {
  const cases: [string, string | string[], Constraints][] = [
    ['nothing', '', {}],
    ['only whitespace', '  \t ', {}],
    ['arch', 'arch=arm64', { arch: 'arm64' }],
    ['every supported arch', 'arch=riscv64', { arch: 'riscv64' }],
    ['empty arch', 'arch=', { arch: '' }],
    ['container lxd', 'container=lxd', { container: 'lxd' }],
    ['container none', 'container=none', { container: 'none' }],
    ['empty container', 'container=', { container: '' }],
    ['cores', 'cores=4', { cores: 4 }],
    ['cpu-cores alias', 'cpu-cores=4', { cores: 4 }],
    ['cpu-power', 'cpu-power=100', { 'cpu-power': 100 }],
    ['empty integer is zero', 'cores=', { cores: 0 }],
    ['mem without suffix is MiB', 'mem=512', { mem: 512 }],
    ['mem M', 'mem=512M', { mem: 512 }],
    ['mem G', 'mem=4G', { mem: 4096 }],
    ['mem fractional G', 'mem=1.5G', { mem: 1536 }],
    ['mem T', 'mem=1T', { mem: 1024 * 1024 }],
    ['mem P', 'mem=1P', { mem: 1024 ** 3 }],
    ['mem rounds up', 'mem=0.1', { mem: 1 }],
    ['mem exponent', 'mem=1e3', { mem: 1000 }],
    ['empty mem is zero', 'mem=', { mem: 0 }],
    ['root-disk', 'root-disk=16G', { 'root-disk': 16384 }],
    ['root-disk-source', 'root-disk-source=ssd', { 'root-disk-source': 'ssd' }],
    ['instance-role', 'instance-role=auto', { 'instance-role': 'auto' }],
    ['instance-type', 'instance-type=m5.large', { 'instance-type': 'm5.large' }],
    ['escaped space', 'instance-type=Big\\ Box', { 'instance-type': 'Big Box' }],
    ['value containing =', 'instance-type=a=b', { 'instance-type': 'a=b' }],
    ['tags list', 'tags=foo,bar', { tags: ['foo', 'bar'] }],
    ['empty tags is an empty list', 'tags=', { tags: [] }],
    ['spaces with exclusion', 'spaces=db,^public', { spaces: ['db', '^public'] }],
    ['empty spaces', 'spaces=', { spaces: [] }],
    ['zones', 'zones=us-east-1a,us-east-1b', { zones: ['us-east-1a', 'us-east-1b'] }],
    ['virt-type', 'virt-type=kvm', { 'virt-type': 'kvm' }],
    ['allocate-public-ip true', 'allocate-public-ip=true', { 'allocate-public-ip': true }],
    ['allocate-public-ip false', 'allocate-public-ip=false', { 'allocate-public-ip': false }],
    ['empty allocate-public-ip is ignored (Juju)', 'allocate-public-ip=', {}],
    ['several items, extra whitespace', '  mem=4G \t cores=2 ', { mem: 4096, cores: 2 }],
    ['items spread over args', ['mem=4G', 'cores=2 arch=amd64'], { mem: 4096, cores: 2, arch: 'amd64' }],
  ];
  it.each(cases)('%s', (_name, input, expected) => {
    expect(parseConstraints(input)).toEqual(expected);
  });

  it('distinguishes an empty value from an absent key', () => {
    expect(parseConstraints('mem=')).not.toEqual(parseConstraints(''));
    expect('mem' in parseConstraints('mem=')).toBe(true);
  });
});

describe('parseConstraints: errors carry Juju messages', () => {
  const cases: [string | string[], string][] = [
    ['cheese', 'malformed constraint "cheese"'],
    ['=cheese', 'malformed constraint "=cheese"'],
    ['cheese=1', 'unknown constraint "cheese"'],
    // Names and values a plain object inherits are no constraint and no boolean (docs/reliability.md, defect #8).
    ['constructor=1', 'unknown constraint "constructor"'],
    ['__proto__=1', 'unknown constraint "__proto__"'],
    ['toString=', 'unknown constraint "toString"'],
    ['hasOwnProperty=x', 'unknown constraint "hasOwnProperty"'],
    ['allocate-public-ip=__proto__', `bad "allocate-public-ip" constraint: must be 'true' or 'false'`],
    ['allocate-public-ip=constructor', `bad "allocate-public-ip" constraint: must be 'true' or 'false'`],
    ['allocate-public-ip=valueOf', `bad "allocate-public-ip" constraint: must be 'true' or 'false'`],
    ['arch=cheese', 'bad "arch" constraint: "cheese" not recognized'],
    ['container=foo', 'bad "container" constraint: invalid container type "foo"'],
    ['cores=-1', 'bad "cores" constraint: must be a non-negative integer'],
    ['cores=1.5', 'bad "cores" constraint: must be a non-negative integer'],
    ['cpu-power=lots', 'bad "cpu-power" constraint: must be a non-negative integer'],
    ['cpu-cores=x', 'bad "cpu-cores" constraint: must be a non-negative integer'],
    ['mem=lots', 'bad "mem" constraint: must be a non-negative float with optional M/G/T/P suffix'],
    ['mem=-1G', 'bad "mem" constraint: must be a non-negative float with optional M/G/T/P suffix'],
    ['mem=G', 'bad "mem" constraint: must be a non-negative float with optional M/G/T/P suffix'],
    ['mem=4K', 'bad "mem" constraint: must be a non-negative float with optional M/G/T/P suffix'],
    ['root-disk=big', 'bad "root-disk" constraint: must be a non-negative float with optional M/G/T/P suffix'],
    ['allocate-public-ip=maybe', `bad "allocate-public-ip" constraint: must be 'true' or 'false'`],
    ['spaces=Bad_Name', 'bad "spaces" constraint: "Bad_Name" is not a valid space name'],
    ['mem=1G mem=2G', 'bad "mem" constraint: already set'],
    ['mem= mem=2G', 'bad "mem" constraint: already set'],
    [['cores=2', 'cores=2'], 'bad "cores" constraint: already set'],
    ['cores=2 cpu-cores=3', 'bad "cpu-cores" constraint: already set'],
  ];
  it.each(cases)('%j', (input, message) => {
    const err = parseError(input);
    expect(err.code).toBe('invalid-argument');
    expect(err.message).toBe(message);
  });

  it('exports a help text naming every key, for callers to print', () => {
    for (const key of CONSTRAINT_KEYS) expect(CONSTRAINTS_HELP).toContain(key);
  });
});

describe('formatConstraints', () => {
  const cases: [Constraints, string][] = [
    [{}, ''],
    [{ mem: 2048 }, 'mem=2048M'],
    [{ mem: 0, cores: 0, tags: [] }, 'cores= mem= tags='],
    [{ 'instance-type': 'Big Box' }, 'instance-type=Big\\ Box'],
    [{ 'allocate-public-ip': false }, 'allocate-public-ip=false'],
    [
      { zones: ['a', 'b'], mem: 4096, arch: 'amd64', cores: 2, 'root-disk': 8192, spaces: ['db'] },
      'arch=amd64 cores=2 mem=4096M root-disk=8192M spaces=db zones=a,b',
    ],
  ];
  it.each(cases)('%j → %j', (input, expected) => {
    expect(formatConstraints(input)).toBe(expected);
  });

  const roundTrips: [string, string][] = [
    ['cpu-cores=2 mem=1.5G arch=arm64', 'arch=arm64 cores=2 mem=1536M'],
    ['mem= tags=', 'mem= tags='],
    ['instance-type=a\\ b', 'instance-type=a\\ b'],
    ['zones=z1,z2 container=lxd', 'container=lxd zones=z1,z2'],
  ];
  it.each(roundTrips)('canonicalises %j as %j', (input, expected) => {
    expect(formatConstraints(parseConstraints(input))).toBe(expected);
  });
});

describe('isEmptyConstraints', () => {
  it('is true for no keys', () => expect(isEmptyConstraints({})).toBe(true));
  it('is false for an explicitly empty key', () => expect(isEmptyConstraints({ mem: 0 })).toBe(false));
});

describe('mergeConstraints', () => {
  const merged = (model: string, app: string) => formatConstraints(mergeConstraints(parseConstraints(model), parseConstraints(app)));

  it('lets the application win per key and the model fill the rest', () => {
    expect(merged('mem=4G cores=2', 'mem=2G')).toBe('cores=2 mem=2048M');
  });
  it('lets an explicit empty application value override the model', () => {
    expect(merged('mem=4G', 'mem=')).toBe('mem=');
  });
  it('drops model sizing keys when the application sets instance-type', () => {
    expect(merged('mem=4G arch=amd64 cores=2 cpu-power=100', 'instance-type=m5.large')).toBe('instance-type=m5.large');
  });
  it('drops the model instance-type when the application sets a sizing key', () => {
    expect(merged('instance-type=m5.large zones=a', 'cores=4')).toBe('cores=4 zones=a');
  });
  it('keeps non-conflicting model keys beside an application instance-type', () => {
    expect(merged('mem=4G spaces=db', 'instance-type=m5.large')).toBe('instance-type=m5.large spaces=db');
  });
  it('does not share list values with its inputs', () => {
    const model = { tags: ['x'] };
    const out = mergeConstraints(model, {});
    out.tags?.push('y');
    expect(model.tags).toEqual(['x']);
  });
});

describe('property: format then parse is the identity on valid constraints', () => {
  // Characters a user can put in a value: no backslash (it escapes spaces) and no whitespace
  // other than the space (which formatting escapes); lists additionally exclude commas.
  const text = (chars: string, minLength = 0) => fc.string({ unit: fc.constantFrom(...chars.split('')), minLength, maxLength: 12 });
  const valueChars = 'abcXYZ019.-_=,^ ';
  const itemChars = 'abcXYZ019.-_=^ ';
  const constraints: fc.Arbitrary<Constraints> = fc.record(
    {
      arch: fc.constantFrom('', 'amd64', 'arm64', 'ppc64el', 's390x', 'riscv64'),
      container: fc.constantFrom('', 'lxd', 'kvm', 'none'),
      cores: fc.maxSafeNat(),
      'cpu-power': fc.maxSafeNat(),
      'instance-role': text(valueChars),
      'instance-type': text(valueChars),
      mem: fc.maxSafeNat(),
      'root-disk': fc.maxSafeNat(),
      'root-disk-source': text(valueChars),
      tags: fc.array(text(itemChars, 1), { maxLength: 4 }),
      spaces: fc.array(fc.stringMatching(/^\^?[a-z0-9]+(-[a-z0-9]+)*$/), { maxLength: 4 }),
      'virt-type': text(valueChars),
      zones: fc.array(text(itemChars, 1), { maxLength: 4 }),
      'allocate-public-ip': fc.boolean(),
    },
    { requiredKeys: [] },
  );

  it('round-trips', () => {
    fc.assert(
      fc.property(constraints, (c) => {
        expect(parseConstraints(formatConstraints(c))).toEqual(c);
      }),
      { numRuns: 500 },
    );
  });
});
