// What the firewall should be, from state alone: Juju's firewaller decides which ports of which
// machines are reachable (https://github.com/juju/juju/tree/3.6/internal/worker/firewaller), and
// this is that decision for drover's layout, one firewall group per application:
//
// - an exposed application's group lets in the union of its units' opened port ranges, from
//   anywhere (0.0.0.0/0, Juju's default for `expose` without `--to-cidrs`); an unexposed
//   application's group lets in nothing, so its ports are never reachable;
// - a group is attached to every instance hosting one of the application's units (a
//   subordinate's host is its principal's machine);
// - an application gets a group when it first needs one (exposed, with a port open) and keeps it
//   while it exists, so expose/unexpose only change rules; once the application is gone its
//   group is left out, which tells the provider to detach and delete it.
//
// Dead units are left out: they are on their way out and run no workload (Juju closes a unit's
// ports when it is removed). The provider applies the result (shared/provider/provider.ts,
// Firewall); this file only decides.
import type { Application, Machine, Unit } from './entities.js';
import { parsePortRange, type PortRange } from './port-ranges.js';

export interface FirewallState {
  /** Every application in state, whatever its life. */
  applications: Pick<Application, 'name' | 'exposed'>[];
  /** Every unit of those applications. */
  units: Pick<Unit, 'name' | 'application' | 'life' | 'machine' | 'principal' | 'openPorts'>[];
  /** The machines the units are on (others are ignored). */
  machines: Pick<Machine, 'id' | 'instanceId'>[];
  /** Applications whose group exists already (the provider's answer): kept while the application is. */
  existingGroups: readonly string[];
}

export interface ApplicationGroup {
  application: string;
  /** Disjoint ranges, sorted: tcp, then udp, then icmp, each by port. Empty while unexposed. */
  ingress: PortRange[];
}

export interface InstanceGroups {
  instanceId: string;
  /** The applications whose groups the instance should carry, sorted. */
  applications: string[];
}

export interface DesiredFirewall {
  /** Every group that should exist, sorted by application; any other group of the controller goes. */
  groups: ApplicationGroup[];
  /** Every instance that should carry at least one group; any other instance should carry none. */
  instances: InstanceGroups[];
}

/** From anywhere: `expose` without `--to-cidrs` (Juju 3's default for IPv4). */
export const EXPOSED_TO_CIDR = '0.0.0.0/0';

export function desiredFirewall(state: FirewallState): DesiredFirewall {
  const live = state.units.filter((u) => u.life !== 'dead');
  const unitsOf = groupBy(live, (u) => u.application);
  const existing = new Set(state.existingGroups);

  const groups: ApplicationGroup[] = [];
  for (const app of [...state.applications].sort((a, b) => compare(a.name, b.name))) {
    const ingress = app.exposed ? mergePortRanges((unitsOf.get(app.name) ?? []).flatMap((u) => u.openPorts.map(parsePortRange))) : [];
    if (ingress.length > 0 || existing.has(app.name)) groups.push({ application: app.name, ingress });
  }

  const instanceOfMachine = new Map(state.machines.flatMap((m) => (m.instanceId ? [[m.id, m.instanceId] as const] : [])));
  const unitsByName = new Map(state.units.map((u) => [u.name, u]));
  // A subordinate has no machine of its own: it runs on its principal's.
  const machineOf = (u: FirewallState['units'][number]) => u.machine ?? (u.principal ? unitsByName.get(u.principal)?.machine : undefined);
  const byInstance = new Map<string, Set<string>>();
  for (const { application } of groups) {
    for (const unit of unitsOf.get(application) ?? []) {
      const machine = machineOf(unit);
      const instanceId = machine === undefined ? undefined : instanceOfMachine.get(machine);
      if (instanceId === undefined) continue; // not placed or not started yet: a later run attaches it
      const apps = byInstance.get(instanceId) ?? new Set<string>();
      byInstance.set(instanceId, apps.add(application));
    }
  }
  const instances = [...byInstance]
    .sort(([a], [b]) => compare(a, b))
    .map(([instanceId, apps]) => ({ instanceId, applications: [...apps].sort(compare) }));
  return { groups, instances };
}

const PROTOCOL_ORDER: Record<PortRange['protocol'], number> = { tcp: 0, udp: 1, icmp: 2 };

/**
 * The same ports as `ranges`, as the fewest disjoint ranges: overlapping and adjacent ranges of a
 * protocol become one, so two units opening 80-90 and 85 need one rule, and a rule set compares
 * equal to another that allows the same ports.
 */
export function mergePortRanges(ranges: readonly PortRange[]): PortRange[] {
  const sorted = [...ranges].sort((a, b) => PROTOCOL_ORDER[a.protocol] - PROTOCOL_ORDER[b.protocol] || a.from - b.from || a.to - b.to);
  const merged: PortRange[] = [];
  for (const range of sorted) {
    const last = merged.at(-1);
    if (last && last.protocol === range.protocol && range.from <= last.to + 1) last.to = Math.max(last.to, range.to);
    else merged.push({ ...range });
  }
  return merged;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
