// The `ebs` storage pool: its attributes and the size of a volume, checked as Juju's ec2 provider
// checks them (https://github.com/juju/juju/blob/3.6/internal/provider/ec2/ebs.go, newEbsConfig,
// parseVolumeOptions and ValidateVolumeParams), in its words, so that `create-storage-pool` and a
// deploy's `--storage` refuse what Juju refuses. Pure: the pool's attributes and a size in, the
// parameters of CreateVolume out (volumes.ts sends them).
//
// Two choices differ from Juju 3.6. Its pool defaults to gp2; drover's to gp3, which costs 20% less
// per GiB-month and gives 3000 IOPS and 125 MiB/s at every size (docs/deploy-to-aws.md, 'Storage').
// And volumes are always encrypted, as drover's root volumes are (ec2-provider.ts):
// `encrypted=false` is accepted, for pools written for Juju, and changes nothing.
import * as z from 'zod';
import { invalidArgument } from '../../domain/errors.js';
import { parseGoBool } from '../../domain/constraints.js';

/** EBS's volume types, and the names Juju 3.6 still takes for some of them. */
export const EBS_VOLUME_TYPES = ['gp3', 'gp2', 'io1', 'io2', 'st1', 'sc1', 'standard'] as const;
export type EbsVolumeType = (typeof EBS_VOLUME_TYPES)[number];
const ALIASES: Record<string, EbsVolumeType> = {
  magnetic: 'standard',
  'optimized-hdd': 'st1',
  'cold-storage': 'sc1',
  ssd: 'gp2',
  'provisioned-iops': 'io1',
};
export const DEFAULT_EBS_VOLUME_TYPE: EbsVolumeType = 'gp3';

/** The pools the ec2 provider offers without `create-storage-pool`, as Juju's ebsProvider.DefaultPools. */
export const EBS_DEFAULT_POOLS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  ebs: {},
  'ebs-ssd': { 'volume-type': 'ssd' },
};

// Juju's limits (ebs.go): IOPS are asked per GiB, at most 30 a GiB and 20000 a volume.
const MAX_IOPS_PER_GIB = 30;
const MAX_IOPS = 20_000;
// What every gp3 volume has without asking (and EBS's least for one): asking for less is refused
// by EC2, so a pool's per-GiB figure that comes to no more is not sent.
export const GP3_BASELINE_IOPS = 3000;
export const GP3_BASELINE_THROUGHPUT_MIB = 125;
const SIZE_GIB: Record<EbsVolumeType, { min: number; max: number }> = {
  standard: { min: 1, max: 1024 },
  gp2: { min: 1, max: 16 * 1024 },
  gp3: { min: 1, max: 16 * 1024 },
  io1: { min: 4, max: 16 * 1024 },
  io2: { min: 4, max: 16 * 1024 },
  st1: { min: 500, max: 16 * 1024 },
  sc1: { min: 500, max: 16 * 1024 },
};

/** What CreateVolume is asked for one volume of the pool. */
export interface EbsVolumeParameters {
  sizeGiB: number;
  volumeType: EbsVolumeType;
  /** The volume's IOPS: the pool's per-GiB figure times the size, at most 20000 (gp3: only above its baseline). */
  iops?: number;
  /** MiB/s, gp3 only. */
  throughput?: number;
  kmsKeyId?: string;
}

/** The pool's attributes, read. */
export interface EbsPoolConfig {
  volumeType: EbsVolumeType;
  /** IOPS per GiB (Juju's `iops`). */
  iopsPerGiB: number;
  throughputMiB: number;
  encrypted: boolean;
  kmsKeyId?: string;
}

// Go's %T(%#v) of a value, as juju/schema's errors print what they got.
const goValue = (v: unknown): string => {
  if (typeof v === 'string') return `string(${JSON.stringify(v)})`;
  if (typeof v === 'number') return Number.isInteger(v) ? `int(${v})` : `float64(${v})`;
  if (typeof v === 'boolean') return `bool(${v})`;
  return `${v === null ? 'nil' : typeof v}(${JSON.stringify(v) ?? String(v)})`;
};
const expected = (want: string) => (v: unknown) => `expected ${want}, got ${goValue(v)}`;

const volumeType = z.unknown().transform((v, ctx): EbsVolumeType => {
  if (typeof v === 'string') {
    if ((EBS_VOLUME_TYPES as readonly string[]).includes(v)) return v as EbsVolumeType;
    if (Object.hasOwn(ALIASES, v)) return ALIASES[v]!;
  }
  ctx.addIssue({ code: 'custom', message: `unexpected value ${typeof v === 'string' ? JSON.stringify(v) : String(v)}` });
  return z.NEVER;
});

// juju/schema's ForceInt: an integer or float, or a string of one; the fraction dropped.
const forceInt = z.unknown().transform((v, ctx): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (Number.isFinite(n)) return Math.trunc(n);
  ctx.addIssue({ code: 'custom', message: expected('number')(v) });
  return z.NEVER;
});

const bool = z.unknown().transform((v, ctx): boolean => {
  const b = typeof v === 'boolean' ? v : typeof v === 'string' ? parseGoBool(v) : undefined;
  if (b !== undefined) return b;
  ctx.addIssue({ code: 'custom', message: expected('bool')(v) });
  return z.NEVER;
});

const string = z.unknown().transform((v, ctx): string => {
  if (typeof v === 'string') return v;
  ctx.addIssue({ code: 'custom', message: expected('string')(v) });
  return z.NEVER;
});

// Attributes Juju does not know are ignored, as its schema.FieldMap ignores them.
const POOL = z.object({
  'volume-type': volumeType.optional(),
  iops: forceInt.optional(),
  throughput: string.optional(),
  encrypted: bool.optional(),
  'kms-key-id': string.optional(),
});

const SIZE_SUFFIXES = 'MGTPEZY';

/**
 * juju/utils' ParseSize, which Juju reads `throughput` with: a number of MiB, or with a suffix
 * M, G, T, ... (alone, or followed by B or iB), rounded up.
 */
function parseThroughput(raw: string): number {
  const at = raw.search(/[^0-9.]/);
  let multiplier = 1;
  let number = raw;
  if (at > 0) {
    const suffix = raw.slice(at);
    const index = [...SIZE_SUFFIXES].findIndex((base) => [base, `${base}B`, `${base}iB`].includes(suffix));
    if (index < 0) throw badThroughput(`invalid multiplier suffix ${JSON.stringify(suffix)}, expected one of ${SIZE_SUFFIXES}`);
    multiplier = 1024 ** index;
    number = raw.slice(0, at);
  }
  const value = /^(\d+\.?\d*|\.\d+)$/.test(number) ? Number(number) : NaN;
  if (!(value >= 0)) throw badThroughput(`expected a non-negative number, got ${JSON.stringify(number)}`);
  return Math.ceil(value * multiplier);
}
const badThroughput = (reason: string) => invalidArgument(`parsing "throughput": ${reason}`);

/**
 * The pool's attributes (as `create-storage-pool` takes them: strings, or YAML values), read and
 * checked as Juju's newEbsConfig does; bad ones are refused with its words, prefixed as Juju
 * prefixes them.
 */
export function parseEbsPool(attributes: Record<string, unknown>): EbsPoolConfig {
  const parsed = POOL.safeParse(attributes);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidArgument(`validating EBS storage config: ${issue.path.join('.')}: ${issue.message}`);
  }
  const attrs = parsed.data;
  const volumeType = attrs['volume-type'] ?? DEFAULT_EBS_VOLUME_TYPE;
  const asGiven = String(attributes['volume-type'] ?? volumeType);
  const iopsPerGiB = attrs.iops ?? 0;
  const throughputMiB = attrs.throughput !== undefined && attrs.throughput !== '' ? parseThroughput(attrs.throughput) : 0;
  if (volumeType === 'io1' || volumeType === 'io2') {
    // Juju names io1 here whichever of the two was asked for.
    if (iopsPerGiB === 0) throw invalidArgument('volume type is "io1", IOPS unspecified or zero');
  } else if (volumeType !== 'gp3' && iopsPerGiB > 0) {
    throw invalidArgument(`IOPS specified, but volume type is ${JSON.stringify(asGiven)}`);
  }
  if (throughputMiB !== 0 && volumeType !== 'gp3')
    throw invalidArgument(`"throughput" cannot be specified when volume type is ${JSON.stringify(asGiven)}`);
  return {
    volumeType,
    iopsPerGiB,
    throughputMiB,
    encrypted: attrs.encrypted ?? false,
    ...(attrs['kms-key-id'] ? { kmsKeyId: attrs['kms-key-id'] } : {}),
  };
}

/** Juju sizes storage in MiB, EBS in GiB: rounded up, as Juju's mibToGib. */
export const mibToGib = (mib: number): number => Math.ceil(mib / 1024);

/**
 * What CreateVolume is asked for a volume of `sizeMiB` from the pool, or Juju's refusal: its
 * IOPS ratio and the type's size range (ValidateVolumeParams).
 */
export function ebsVolumeParameters(sizeMiB: number, attributes: Record<string, unknown>): EbsVolumeParameters {
  const pool = parseEbsPool(attributes);
  if (pool.iopsPerGiB > MAX_IOPS_PER_GIB)
    throw invalidArgument(`specified IOPS ratio is ${pool.iopsPerGiB}/GiB, maximum is ${MAX_IOPS_PER_GIB}/GiB`);
  const sizeGiB = mibToGib(sizeMiB);
  const { min, max } = SIZE_GIB[pool.volumeType];
  if (sizeGiB < min) throw invalidArgument(`volume size is ${sizeGiB} GiB, must be at least ${min} GiB`);
  if (sizeGiB > max) throw invalidArgument(`volume size ${sizeGiB} GiB exceeds the maximum of ${max} GiB`);
  const asked = Math.min(pool.iopsPerGiB * sizeGiB, MAX_IOPS);
  const iops = pool.volumeType === 'gp3' && asked <= GP3_BASELINE_IOPS ? 0 : asked;
  return {
    sizeGiB,
    volumeType: pool.volumeType,
    ...(iops > 0 ? { iops } : {}),
    ...(pool.throughputMiB > 0 ? { throughput: pool.throughputMiB } : {}),
    ...(pool.kmsKeyId ? { kmsKeyId: pool.kmsKeyId } : {}),
  };
}
