import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { errorMessage, isDroverError } from '#shared/domain/errors.js';
import { EBS_DEFAULT_POOLS, ebsVolumeParameters, mibToGib, parseEbsPool } from '#shared/provider/ec2/ebs-pool.js';

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(isDroverError(e, 'invalid-argument')).toBe(true);
    return errorMessage(e);
  }
  throw new Error('expected a refusal');
};

describe('the ebs pool: attributes read as Juju 3.6 reads them', () => {
  it('defaults to gp3 with nothing else asked', () => {
    expect(parseEbsPool({})).toEqual({ volumeType: 'gp3', iopsPerGiB: 0, throughputMiB: 0, encrypted: false });
  });

  it('offers Juju’s default pools: ebs (gp3 here) and ebs-ssd (gp2)', () => {
    expect(Object.keys(EBS_DEFAULT_POOLS)).toEqual(['ebs', 'ebs-ssd']);
    expect(parseEbsPool(EBS_DEFAULT_POOLS['ebs']!).volumeType).toBe('gp3');
    expect(parseEbsPool(EBS_DEFAULT_POOLS['ebs-ssd']!).volumeType).toBe('gp2');
  });

  it.each([
    [{ 'volume-type': 'gp2' }, { volumeType: 'gp2' }],
    [{ 'volume-type': 'ssd' }, { volumeType: 'gp2' }],
    [{ 'volume-type': 'magnetic' }, { volumeType: 'standard' }],
    [{ 'volume-type': 'optimized-hdd' }, { volumeType: 'st1' }],
    [{ 'volume-type': 'cold-storage' }, { volumeType: 'sc1' }],
    [
      { 'volume-type': 'provisioned-iops', iops: '10' },
      { volumeType: 'io1', iopsPerGiB: 10 },
    ],
    [
      { 'volume-type': 'io2', iops: 12.7 },
      { volumeType: 'io2', iopsPerGiB: 12 },
    ],
    [
      { 'volume-type': 'gp3', iops: '5', throughput: '250M' },
      { volumeType: 'gp3', iopsPerGiB: 5, throughputMiB: 250 },
    ],
    [{ throughput: '1GiB' }, { throughputMiB: 1024 }],
    [{ throughput: '200' }, { throughputMiB: 200 }],
    [
      { encrypted: 'true', 'kms-key-id': 'alias/data' },
      { encrypted: true, kmsKeyId: 'alias/data' },
    ],
    [{ encrypted: false }, { encrypted: false }],
    // Attributes Juju does not know are ignored, as its schema ignores them.
    [{ 'volume-type': 'st1', colour: 'blue' }, { volumeType: 'st1' }],
  ])('reads %j', (attributes, expected) => {
    expect(parseEbsPool(attributes)).toMatchObject(expected);
  });

  it.each([
    [{ 'volume-type': 'nvme' }, 'validating EBS storage config: volume-type: unexpected value "nvme"'],
    [{ 'volume-type': 3 }, 'validating EBS storage config: volume-type: unexpected value 3'],
    [{ iops: 'many' }, 'validating EBS storage config: iops: expected number, got string("many")'],
    [{ encrypted: 'yes' }, 'validating EBS storage config: encrypted: expected bool, got string("yes")'],
    [{ 'kms-key-id': 7 }, 'validating EBS storage config: kms-key-id: expected string, got int(7)'],
    [{ 'volume-type': 'io1' }, 'volume type is "io1", IOPS unspecified or zero'],
    [{ 'volume-type': 'io2', iops: 0 }, 'volume type is "io1", IOPS unspecified or zero'],
    [{ 'volume-type': 'gp2', iops: 3 }, 'IOPS specified, but volume type is "gp2"'],
    [{ 'volume-type': 'ssd', iops: 3 }, 'IOPS specified, but volume type is "ssd"'],
    [{ 'volume-type': 'st1', throughput: '250M' }, '"throughput" cannot be specified when volume type is "st1"'],
    [{ throughput: '250X' }, 'parsing "throughput": invalid multiplier suffix "X", expected one of MGTPEZY'],
    [{ throughput: '-5' }, 'parsing "throughput": expected a non-negative number, got "-5"'],
  ])('refuses %j in Juju’s words', (attributes, message) => {
    expect(refusal(() => parseEbsPool(attributes))).toBe(message);
  });
});

describe('the ebs pool: a volume’s parameters', () => {
  it('sizes in whole GiB, rounded up from MiB as Juju does', () => {
    expect(ebsVolumeParameters(1, {})).toEqual({ sizeGiB: 1, volumeType: 'gp3' });
    expect(ebsVolumeParameters(1025, {})).toEqual({ sizeGiB: 2, volumeType: 'gp3' });
    expect(ebsVolumeParameters(10 * 1024, { 'kms-key-id': 'alias/k', throughput: '300M' })).toEqual({
      sizeGiB: 10,
      volumeType: 'gp3',
      throughput: 300,
      kmsKeyId: 'alias/k',
    });
  });

  it('asks IOPS per GiB times the size, at most 20000', () => {
    expect(ebsVolumeParameters(100 * 1024, { 'volume-type': 'io1', iops: 10 }).iops).toBe(1000);
    expect(ebsVolumeParameters(1000 * 1024, { 'volume-type': 'io2', iops: 30 }).iops).toBe(20_000);
  });

  it('asks gp3 for IOPS only above the 3000 every gp3 volume has (EC2 refuses fewer)', () => {
    expect(ebsVolumeParameters(100 * 1024, { iops: 30 }).iops).toBeUndefined();
    expect(ebsVolumeParameters(101 * 1024, { iops: 30 }).iops).toBe(3030);
  });

  it.each([
    [1024, { 'volume-type': 'io1', iops: 31 }, 'specified IOPS ratio is 31/GiB, maximum is 30/GiB'],
    [3 * 1024, { 'volume-type': 'io1', iops: 5 }, 'volume size is 3 GiB, must be at least 4 GiB'],
    [100 * 1024, { 'volume-type': 'st1' }, 'volume size is 100 GiB, must be at least 500 GiB'],
    [2000 * 1024, { 'volume-type': 'magnetic' }, 'volume size 2000 GiB exceeds the maximum of 1024 GiB'],
    [16 * 1024 * 1024 + 1, {}, 'volume size 16385 GiB exceeds the maximum of 16384 GiB'],
  ])('refuses %i MiB of %j in Juju’s words', (size, attributes, message) => {
    expect(refusal(() => ebsVolumeParameters(size, attributes))).toBe(message);
  });

  it('any size it accepts holds the request, within the type’s range', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 * 1024 * 1024 }), fc.constantFrom('gp3', 'gp2', 'st1', 'sc1', 'standard'), (mib, type) => {
        let parameters;
        try {
          parameters = ebsVolumeParameters(mib, { 'volume-type': type });
        } catch (e) {
          expect(isDroverError(e, 'invalid-argument')).toBe(true);
          return;
        }
        expect(parameters.sizeGiB * 1024).toBeGreaterThanOrEqual(mib);
        expect(parameters.sizeGiB).toBe(mibToGib(mib));
        expect(parameters.sizeGiB).toBeLessThanOrEqual(type === 'standard' ? 1024 : 16 * 1024);
      }),
    );
  });
});
