// EC2 instance-type selection: constraints → the cheapest instance type that satisfies them,
// following Juju 2.9's findInstanceSpec / MatchingInstanceTypes
// (https://github.com/juju/juju/blob/2.9/provider/ec2/environ.go,
// https://github.com/juju/juju/blob/2.9/environs/instances/instancetype.go), so a user who knows
// Juju gets the machine they expect from the same constraints.
import { formatConstraints, type Constraints } from '../../domain/constraints.js';
import { ProviderError } from '../provider.js';

export type Ec2Arch = 'amd64' | 'arm64';

export interface InstanceType {
  name: string;
  arch: Ec2Arch;
  /** vCPUs (Juju's `cores`). */
  cores: number;
  /** Juju's cpu-power: 100 ≈ one 2007 ECU. */
  cpuPower: number;
  /** MiB. */
  mem: number;
  /** On-demand Linux USD/hour in us-east-1: only the order matters. */
  costPerHour: number;
  /** Previous generation: chosen only when named by `instance-type` (as Juju). */
  deprecated?: boolean;
}

export type InstanceTypeCatalogue = readonly InstanceType[];

// Juju's estimate for types with a sustained clock speed (provider/ec2 calculateCPUPower):
// GHz × 1.4 × 100 × vCPUs, truncated — which is why c4.large (2.9 GHz) gets 811, not 812.
const sustained = (ghz: number, vcpus: number): number => Math.trunc(ghz * 1.4 * 100 * vcpus);

const type = (
  name: string,
  arch: Ec2Arch,
  cores: number,
  memGiB: number,
  cpuPower: number,
  costPerHour: number,
  deprecated = false,
): InstanceType => ({
  name,
  arch,
  cores,
  mem: Math.round(memGiB * 1024),
  cpuPower,
  costPerHour,
  ...(deprecated ? { deprecated } : {}),
});

// A small built-in catalogue (us-east-1 on-demand prices, sustained clock speeds as
// DescribeInstanceTypes reports them). Big enough for general workloads and for every row of
// Juju's worked examples; a type missing here cannot be named by `instance-type`.
// Only t1/t2 get Juju's small fixed cpu-power (they throttle to a fraction of a core); t3, t3a
// and t4g report a sustained clock, so Juju (and we) treat them like any other type.
export const EC2_INSTANCE_TYPES: InstanceTypeCatalogue = [
  // Burstable, previous style: fixed tiny cpu-power keeps the cpu-power=100 default off them.
  type('t2.nano', 'amd64', 1, 0.5, 5, 0.0058),
  type('t2.micro', 'amd64', 1, 1, 10, 0.0116),
  type('t2.small', 'amd64', 1, 2, 20, 0.023),
  type('t2.medium', 'amd64', 2, 4, 40, 0.0464),
  type('t2.large', 'amd64', 2, 8, 60, 0.0928),
  // Burstable, AMD (2.2 GHz sustained).
  type('t3a.nano', 'amd64', 2, 0.5, sustained(2.2, 2), 0.0047),
  type('t3a.micro', 'amd64', 2, 1, sustained(2.2, 2), 0.0094),
  type('t3a.small', 'amd64', 2, 2, sustained(2.2, 2), 0.0188),
  type('t3a.medium', 'amd64', 2, 4, sustained(2.2, 2), 0.0376),
  type('t3a.large', 'amd64', 2, 8, sustained(2.2, 2), 0.0752),
  type('t3a.xlarge', 'amd64', 4, 16, sustained(2.2, 4), 0.1504),
  type('t3a.2xlarge', 'amd64', 8, 32, sustained(2.2, 8), 0.3008),
  // Burstable, Intel (2.5 GHz sustained).
  type('t3.nano', 'amd64', 2, 0.5, sustained(2.5, 2), 0.0052),
  type('t3.micro', 'amd64', 2, 1, sustained(2.5, 2), 0.0104),
  type('t3.small', 'amd64', 2, 2, sustained(2.5, 2), 0.0208),
  type('t3.medium', 'amd64', 2, 4, sustained(2.5, 2), 0.0416),
  type('t3.large', 'amd64', 2, 8, sustained(2.5, 2), 0.0832),
  type('t3.xlarge', 'amd64', 4, 16, sustained(2.5, 4), 0.1664),
  // General purpose, compute and memory optimised (amd64).
  type('m5.large', 'amd64', 2, 8, sustained(3.1, 2), 0.096),
  type('m5.xlarge', 'amd64', 4, 16, sustained(3.1, 4), 0.192),
  type('m5.2xlarge', 'amd64', 8, 32, sustained(3.1, 8), 0.384),
  type('m5.24xlarge', 'amd64', 96, 384, sustained(3.1, 96), 4.608),
  type('m5a.large', 'amd64', 2, 8, sustained(2.5, 2), 0.086),
  type('m5a.xlarge', 'amd64', 4, 16, sustained(2.5, 4), 0.172),
  type('c5.large', 'amd64', 2, 4, sustained(3.4, 2), 0.085),
  type('c5.xlarge', 'amd64', 4, 8, sustained(3.4, 4), 0.17),
  type('c5.2xlarge', 'amd64', 8, 16, sustained(3.4, 8), 0.34),
  type('r5a.large', 'amd64', 2, 16, sustained(2.5, 2), 0.113),
  type('r5a.xlarge', 'amd64', 4, 32, sustained(2.5, 4), 0.226),
  // Previous generation (HVM, still offered): only by name.
  type('m3.medium', 'amd64', 1, 3.75, sustained(2.5, 1), 0.067, true),
  type('m3.large', 'amd64', 2, 7.5, sustained(2.5, 2), 0.133, true),
  type('c4.large', 'amd64', 2, 3.75, sustained(2.9, 2), 0.1, true),
  type('c4.xlarge', 'amd64', 4, 7.5, sustained(2.9, 4), 0.199, true),
  // Graviton (arm64).
  type('t4g.nano', 'arm64', 2, 0.5, sustained(2.5, 2), 0.0042),
  type('t4g.micro', 'arm64', 2, 1, sustained(2.5, 2), 0.0084),
  type('t4g.small', 'arm64', 2, 2, sustained(2.5, 2), 0.0168),
  type('t4g.medium', 'arm64', 2, 4, sustained(2.5, 2), 0.0336),
  type('t4g.large', 'arm64', 2, 8, sustained(2.5, 2), 0.0672),
  type('t4g.xlarge', 'arm64', 4, 16, sustained(2.5, 4), 0.1344),
  type('t4g.2xlarge', 'arm64', 8, 32, sustained(2.5, 8), 0.2688),
  type('a1.medium', 'arm64', 1, 2, sustained(2.3, 1), 0.0255),
  type('a1.large', 'arm64', 2, 4, sustained(2.3, 2), 0.051),
  type('a1.xlarge', 'arm64', 4, 8, sustained(2.3, 4), 0.102),
  type('a1.2xlarge', 'arm64', 8, 16, sustained(2.3, 8), 0.204),
  type('m6g.medium', 'arm64', 1, 4, sustained(2.5, 1), 0.0385),
  type('m6g.large', 'arm64', 2, 8, sustained(2.5, 2), 0.077),
  type('m6g.xlarge', 'arm64', 4, 16, sustained(2.5, 4), 0.154),
  type('c6g.medium', 'arm64', 1, 2, sustained(2.5, 1), 0.034),
  type('c6g.large', 'arm64', 2, 4, sustained(2.5, 2), 0.068),
  type('c6g.xlarge', 'arm64', 4, 8, sustained(2.5, 4), 0.136),
];

export interface InstanceTypeChoice {
  instanceType: InstanceType;
  /** EBS root volume: max(root-disk, 8 GiB), rounded up to whole GiB (as Juju's EC2 provider sizes it: https://github.com/juju/juju/tree/3.6/internal/provider/ec2). */
  rootVolumeGiB: number;
}

// Juju's defaults for non-controller machines. drover's controller is serverless, so every
// machine a provider starts is a workload machine: the controller default (mem=3.5G) never applies.
const DEFAULT_ARCH: Ec2Arch = 'amd64';
const DEFAULT_CPU_POWER = 100; // steers away from t2's throttled fractions of a core
const HEURISTIC_MIN_MEM = 1024; // MiB: a useful machine, unless the user said otherwise
const MIN_ROOT_DISK_GIB = 8; // Ubuntu images' own root volume size

/**
 * The constraints selection works with: the user's, plus Juju's defaults (arch; cpu-power=100
 * unless an instance type or a positive cpu-power was given). These are what error messages quote.
 */
export function effectiveConstraints(constraints: Constraints, catalogue: InstanceTypeCatalogue): Constraints {
  const instanceType = constraints['instance-type'] || undefined;
  // With no arch, Juju takes the image arches: a named arm64 type therefore runs as arm64.
  const named = instanceType && catalogue.find((t) => t.name === instanceType);
  const arch = constraints.arch || (named ? named.arch : DEFAULT_ARCH);
  // `cpu-power=` (zero) still gets the default: Juju tests for a positive value here.
  const defaultCpuPower = !instanceType && !constraints['cpu-power'];
  return {
    ...constraints,
    arch,
    ...(defaultCpuPower ? { 'cpu-power': DEFAULT_CPU_POWER } : {}),
  };
}

/** Whether one type satisfies constraints (effective ones; EBS types ignore root-disk). */
export function satisfies(t: InstanceType, c: Constraints, minMem = 0): boolean {
  const instanceType = c['instance-type'] || undefined;
  if (instanceType !== undefined ? t.name !== instanceType : t.deprecated === true) return false;
  return (
    t.arch === (c.arch || DEFAULT_ARCH) &&
    t.cores >= (c.cores ?? 0) &&
    t.cpuPower >= (c['cpu-power'] ?? 0) &&
    t.mem >= Math.max(c.mem ?? 0, minMem)
  );
}

// Cheapest first; ties go to the smaller machine, then the name so the choice is stable.
function byCost(a: InstanceType, b: InstanceType): number {
  return (
    a.costPerHour - b.costPerHour ||
    a.mem - b.mem ||
    a.cpuPower - b.cpuPower ||
    a.cores - b.cores ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
}

export function selectInstanceType(constraints: Constraints, catalogue: InstanceTypeCatalogue, region: string): InstanceTypeChoice {
  const cons = effectiveConstraints(constraints, catalogue);
  // Temporary mem ≥ 1G: presence matters, so `mem=` (explicit zero) disables it (Juju's constraints: https://juju.is/docs/juju/constraint).
  const heuristic = constraints.mem === undefined && !constraints['instance-type'];
  let matches = catalogue.filter((t) => satisfies(t, cons, heuristic ? HEURISTIC_MIN_MEM : 0));
  if (matches.length === 0 && heuristic) {
    // The heuristic eliminated everything: keep the biggest machine that fits without it.
    const fallback = catalogue.filter((t) => satisfies(t, cons));
    const maxMem = Math.max(...fallback.map((t) => t.mem));
    matches = fallback.filter((t) => t.mem === maxMem);
  }
  const [chosen] = matches.sort(byCost);
  if (!chosen) {
    throw new ProviderError(
      `no instance types in ${region} matching constraints "${formatConstraints(cons)}"`,
      false, // the same constraints will never match: the user must change them
    );
  }
  const rootDiskGiB = Math.ceil((constraints['root-disk'] ?? 0) / 1024);
  return { instanceType: chosen, rootVolumeGiB: Math.max(rootDiskGiB, MIN_ROOT_DISK_GIB) };
}

/** Juju's hardware characteristics string, as `status` shows it. */
export function formatHardware(choice: InstanceTypeChoice, availabilityZone?: string): string {
  const t = choice.instanceType;
  const parts = [
    `arch=${t.arch}`,
    `cores=${t.cores}`,
    `cpu-power=${t.cpuPower}`,
    `mem=${t.mem}M`,
    `root-disk=${choice.rootVolumeGiB * 1024}M`,
  ];
  if (availabilityZone) parts.push(`availability-zone=${availabilityZone}`);
  return parts.join(' ');
}
