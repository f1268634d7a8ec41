import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parseConstraints, type Constraints } from '#shared/domain/constraints.js';
import { ProviderError } from '#shared/provider/provider.js';
import {
  EC2_INSTANCE_TYPES,
  formatHardware,
  selectInstanceType,
  type InstanceType,
  type InstanceTypeCatalogue,
} from '#shared/provider/ec2/instance-types.js';

const REGION = 'us-east-1';
const select = (cons: string, catalogue: InstanceTypeCatalogue = EC2_INSTANCE_TYPES) =>
  selectInstanceType(parseConstraints(cons), catalogue, REGION);

function selectError(cons: string, catalogue: InstanceTypeCatalogue = EC2_INSTANCE_TYPES): ProviderError {
  try {
    select(cons, catalogue);
  } catch (e) {
    if (e instanceof ProviderError) return e;
    throw e;
  }
  throw new Error(`expected "${cons}" to match no instance type`);
}

const t = (
  name: string,
  arch: 'amd64' | 'arm64',
  cores: number,
  mem: number,
  cpuPower: number,
  cost: number,
  deprecated = false,
): InstanceType => ({ name, arch, cores, mem, cpuPower, costPerHour: cost, ...(deprecated ? { deprecated } : {}) });

// Juju's worked examples (https://github.com/juju/juju/blob/2.9/provider/ec2/image_test.go), with
// today's equivalents of its test table: c4.large → c5.large (c4 is previous generation here),
// m1.medium/m1.small → m3.medium (previous generation, only by name), everything else kept by name.
describe('selectInstanceType: Juju worked examples', () => {
  const rows: [why: string, cons: string, chosen: string][] = [
    ['(none) → t3a.micro: cpu-power≥100 and mem≥1G make it the cheapest', '', 't3a.micro'],
    ['cores=4 → t3a.xlarge: the cheapest with ≥4 cores', 'cores=4', 't3a.xlarge'],
    ['mem=10G → r5a.large: the cheapest with ≥10240M', 'mem=10G', 'r5a.large'],
    ['mem= → t3a.nano: an explicit empty mem disables the 1G heuristic', 'mem=', 't3a.nano'],
    ['cpu-power= → t3a.micro: zero still gets the default 100, and the mem heuristic applies', 'cpu-power=', 't3a.micro'],
    ['cpu-power=800 → c5.large (Juju: c4.large, previous generation here)', 'cpu-power=800', 'c5.large'],
    ['mem=2G root-disk=16384M → t3a.small: root-disk does not filter EBS types', 'mem=2G root-disk=16384M', 't3a.small'],
    [
      'instance-type=m3.medium cpu-power=100 → m3.medium (Juju: m1.medium): named, even deprecated',
      'instance-type=m3.medium cpu-power=100',
      'm3.medium',
    ],
    ['arch=arm64 cores=4 → a1.xlarge: the arch filter', 'arch=arm64 cores=4', 'a1.xlarge'],
  ];
  for (const [why, cons, chosen] of rows) {
    it(why, () => {
      expect(select(cons).instanceType.name).toBe(chosen);
    });
  }

  it('instance-type=m3.medium mem=4G (Juju: m1.small mem=4G) → an error quoting the constraints', () => {
    const err = selectError('instance-type=m3.medium mem=4G');
    expect(err.message).toBe('no instance types in us-east-1 matching constraints "arch=amd64 instance-type=m3.medium mem=4096M"');
    expect(err.transient).toBe(false);
  });
});

describe('selectInstanceType: rules', () => {
  it('says no type matches, quoting the defaults applied but not the temporary mem minimum', () => {
    const err = selectError('cores=1000');
    expect(err.message).toBe('no instance types in us-east-1 matching constraints "arch=amd64 cores=1000 cpu-power=100"');
    expect(err.transient).toBe(false);
  });

  it('says which region it looked in', () => {
    expect(() => selectInstanceType({ cores: 1000 }, EC2_INSTANCE_TYPES, 'eu-west-1')).toThrow(
      'no instance types in eu-west-1 matching constraints',
    );
  });

  it('chooses arm64 when asked: the cheapest Graviton with ≥1G', () => {
    expect(select('arch=arm64').instanceType).toMatchObject({ name: 't4g.micro', arch: 'arm64' });
  });

  it('takes the arch from a named instance type when no arch is given', () => {
    expect(select('instance-type=t4g.large').instanceType).toMatchObject({ name: 't4g.large', arch: 'arm64' });
  });

  it('refuses a named type of another arch', () => {
    expect(selectError('arch=amd64 instance-type=t4g.large').message).toBe(
      'no instance types in us-east-1 matching constraints "arch=amd64 instance-type=t4g.large"',
    );
  });

  it('refuses an instance type the catalogue does not know', () => {
    expect(selectError('instance-type=x9.huge').message).toBe(
      'no instance types in us-east-1 matching constraints "arch=amd64 instance-type=x9.huge"',
    );
  });

  it('names a burstable t2 only by instance-type: the cpu-power default is not applied then', () => {
    expect(select('instance-type=t2.micro').instanceType.name).toBe('t2.micro');
  });

  it('steers away from t2 by the default cpu-power=100 even when t2 is cheapest', () => {
    const catalogue = [t('t2.micro', 'amd64', 1, 1024, 10, 0.001), t('t3a.micro', 'amd64', 2, 1024, 616, 0.01)];
    expect(select('', catalogue).instanceType.name).toBe('t3a.micro');
    expect(select('cpu-power=10', catalogue).instanceType.name).toBe('t2.micro');
  });

  it('never chooses a deprecated type unless it is named', () => {
    const catalogue = [t('c4.large', 'amd64', 2, 3840, 811, 0.001, true), t('c5.large', 'amd64', 2, 4096, 952, 0.085)];
    expect(select('cpu-power=800', catalogue).instanceType.name).toBe('c5.large');
    expect(select('instance-type=c4.large', catalogue).instanceType.name).toBe('c4.large');
  });

  it('when the 1G heuristic leaves nothing, retries without it and keeps the largest memory', () => {
    const catalogue = [
      t('tiny', 'amd64', 2, 256, 200, 0.001),
      t('small-dear', 'amd64', 2, 512, 200, 0.003),
      t('small-cheap', 'amd64', 2, 512, 200, 0.002),
    ];
    expect(select('', catalogue).instanceType.name).toBe('small-cheap');
  });

  it('orders equal costs by mem, then cpu-power, then cores', () => {
    const catalogue = [
      t('more-mem', 'amd64', 2, 2048, 200, 0.01),
      t('more-power', 'amd64', 2, 1024, 300, 0.01),
      t('more-cores', 'amd64', 4, 1024, 200, 0.01),
      t('least', 'amd64', 2, 1024, 200, 0.01),
    ];
    expect(select('', catalogue).instanceType.name).toBe('least');
    expect(select('', catalogue.slice(0, 3)).instanceType.name).toBe('more-cores');
    expect(select('', catalogue.slice(0, 2)).instanceType.name).toBe('more-power');
  });

  it('sizes the root volume from root-disk, rounded up to GiB', () => {
    expect(select('root-disk=16384M').rootVolumeGiB).toBe(16);
    expect(select('root-disk=10000M').rootVolumeGiB).toBe(10);
  });

  it('gives the root volume at least the image minimum of 8 GiB', () => {
    expect(select('').rootVolumeGiB).toBe(8);
    expect(select('root-disk=2G').rootVolumeGiB).toBe(8);
  });

  it('describes the hardware in Juju form', () => {
    const choice = select('mem=2G root-disk=16384M');
    expect(formatHardware(choice)).toBe('arch=amd64 cores=2 cpu-power=616 mem=2048M root-disk=16384M');
    expect(formatHardware(choice, 'us-east-1a')).toBe(
      'arch=amd64 cores=2 cpu-power=616 mem=2048M root-disk=16384M availability-zone=us-east-1a',
    );
  });

  it('gives cpu-power as Juju computes it: sustained GHz × 1.4 × 100 × vCPUs, truncated', () => {
    const power = (name: string) => EC2_INSTANCE_TYPES.find((x) => x.name === name)?.cpuPower;
    expect(power('c4.large')).toBe(811); // 2.9 GHz: Juju's own example value
    expect(power('c5.large')).toBe(952);
    expect(power('t2.medium')).toBe(40); // burstable t2: Juju's fixed value
  });
});

describe('selectInstanceType: property', () => {
  // An independent statement of what "satisfies" means, including Juju's defaults.
  function meets(x: InstanceType, cons: Constraints, catalogue: InstanceTypeCatalogue): boolean {
    const named = cons['instance-type'] || undefined;
    const arch = cons.arch || catalogue.find((y) => y.name === named)?.arch || 'amd64';
    const cpuPower = named ? (cons['cpu-power'] ?? 0) : cons['cpu-power'] || 100;
    return (
      (named ? x.name === named : !x.deprecated) &&
      x.arch === arch &&
      x.cores >= (cons.cores ?? 0) &&
      x.cpuPower >= cpuPower &&
      x.mem >= (cons.mem ?? 0)
    );
  }

  const arbCatalogue: fc.Arbitrary<InstanceTypeCatalogue> = fc.uniqueArray(
    fc.record({
      name: fc.constantFrom('a.1', 'a.2', 'b.1', 'b.2', 'c.1', 'c.2', 'd.1', 'd.2', 'e.1', 'e.2'),
      arch: fc.constantFrom('amd64' as const, 'arm64' as const),
      cores: fc.integer({ min: 1, max: 16 }),
      mem: fc.constantFrom(512, 1024, 2048, 4096, 16384),
      cpuPower: fc.constantFrom(10, 40, 100, 616, 1400),
      costPerHour: fc.constantFrom(0.005, 0.01, 0.02, 0.1),
      deprecated: fc.boolean(),
    }),
    { selector: (x) => x.name, maxLength: 10 },
  );
  const catalogues = fc.oneof(fc.constant(EC2_INSTANCE_TYPES), arbCatalogue);
  const names = ['t3a.micro', 't4g.large', 'm3.medium', 'a.1', 'c.2', 'x9.huge', ''];
  const arbConstraints: fc.Arbitrary<Constraints> = fc.record(
    {
      arch: fc.constantFrom('', 'amd64', 'arm64'),
      cores: fc.integer({ min: 0, max: 20 }),
      'cpu-power': fc.constantFrom(0, 10, 100, 500, 800, 1500),
      mem: fc.constantFrom(0, 512, 1024, 3000, 10240, 65536),
      'root-disk': fc.integer({ min: 0, max: 100_000 }),
      'instance-type': fc.constantFrom(...names),
    },
    { requiredKeys: [] },
  );

  it('chooses a type that satisfies the constraints, and no cheaper type does', () => {
    fc.assert(
      fc.property(catalogues, arbConstraints, (catalogue, cons) => {
        const fitting = catalogue.filter((x) => meets(x, cons, catalogue));
        let chosen: InstanceType;
        try {
          chosen = selectInstanceType(cons, catalogue, REGION).instanceType;
        } catch (e) {
          expect(e).toBeInstanceOf(ProviderError);
          expect(fitting).toEqual([]);
          return;
        }
        expect(meets(chosen, cons, catalogue)).toBe(true);
        // Only Juju's temporary 1G minimum may pass over a cheaper fitting type, and then only
        // one with less than 1G — or, when nothing has 1G, one with less memory than the choice.
        const heuristic = cons.mem === undefined && !cons['instance-type'];
        for (const cheaper of fitting.filter((x) => x.costPerHour < chosen.costPerHour)) {
          expect(heuristic).toBe(true);
          expect(cheaper.mem).toBeLessThan(chosen.mem >= 1024 ? 1024 : chosen.mem);
        }
        if (heuristic && chosen.mem < 1024) {
          expect(Math.max(...fitting.map((x) => x.mem))).toBe(chosen.mem);
        }
      }),
      { numRuns: 500 },
    );
  });
});
