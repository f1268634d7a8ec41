// The firewaller: Juju's worker that opens an exposed application's ports and closes them again
// (https://github.com/juju/juju/tree/3.6/internal/worker/firewaller), as one level-triggered
// step: read the applications, their units and machines, decide (shared/domain/firewall.ts), and
// have the provider apply it (shared/provider/provider.ts, Firewall).
//
// It runs as a step of the provisioner's scheduled full reconcile (reconcile-all.ts, every 5
// minutes: infra/schedules.ts), not on the stream. The stream has its two readers already
// (functions/stream-consumers.ts) and a third is against DynamoDB's advice; widening the
// provisioner's filter to applications and units would wake it for every hook's status write,
// to do a whole-model read each time. The scheduled step reads state afresh and compares it with
// what EC2 has, so it converges from anything (a lost run, a crash half-way, two runs at once)
// within one period; the price is that `expose`, `unexpose` and a hook's open-port take effect
// within 5 minutes rather than at once (docs/deploy-to-aws.md, 'Exposing applications').
import type { Application, Machine, Unit } from '../domain/entities.js';
import { desiredFirewall } from '../domain/firewall.js';
import { refs } from '../domain/plan.js';
import type { Firewall, FirewallReport } from '../provider/provider.js';
import { collections } from '../state/engine/keys.js';
import { getMany, listAll } from '../state/engine/reads.js';
import type { Store } from '../state/engine/store.js';

/** Converges the controller's firewall to state; `undefined` where the provider has none (local). */
export async function reconcileFirewall(
  store: Store,
  firewall: Firewall | undefined,
  controllerId: string,
): Promise<FirewallReport | undefined> {
  if (!firewall) return undefined;
  // Groups first, state after, so an application read below as exposed with ports keeps its
  // group whatever this listing missed. A group another run made after this listing, for an
  // application this run reads as not needing one, may be deleted again: harmless, its ports are
  // closed in that state, and a later run makes it again when they open.
  const existingGroups = await firewall.applicationGroups(controllerId);
  const state = await readFirewallState(store, new Set(existingGroups));
  return firewall.applyFirewall(controllerId, desiredFirewall({ ...state, existingGroups }));
}

/**
 * The applications, and the units and machines of those that may need a group (exposed, or with
 * one already): the others' units cannot change the decision, so they are not read — but for
 * the principals of subordinates, which say where a subordinate runs.
 */
async function readFirewallState(store: Store, withGroup: Set<string>) {
  const applications = await getMany<Application>(store, await listAll(store, collections.applications(store.model)));
  const relevant = applications.filter((a) => a.exposed || withGroup.has(a.name));
  const units: Unit[] = [];
  for (const app of relevant) units.push(...(await getMany<Unit>(store, await listAll(store, collections.unitsOf(store.model, app.name)))));
  const read = new Set(units.map((u) => u.name));
  const principals = [...new Set(units.flatMap((u) => (u.principal && !read.has(u.principal) ? [u.principal] : [])))];
  units.push(...(await getMany<Unit>(store, principals.map(refs.unit))));
  const machineIds = [...new Set(units.flatMap((u) => (u.machine ? [u.machine] : [])))];
  const machines = await getMany<Machine>(store, machineIds.map(refs.machine));
  return { applications, units, machines };
}
