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
//
// The controller's groups serve every model's applications, and one decision covers them all: a
// run that saw one model only would delete the others' groups. Application names repeat across
// models, so the provider knows another model's application by a name that carries the model's
// key (firewallName); `default`'s keep their names, and so their groups.
import type { Application, Machine, Unit } from '../domain/entities.js';
import { desiredFirewall, type FirewallState } from '../domain/firewall.js';
import { DEFAULT_MODEL_KEY } from '../domain/models.js';
import { refs } from '../domain/plan.js';
import type { Firewall, FirewallReport } from '../provider/provider.js';
import { collections } from '../state/engine/keys.js';
import { getMany, listAll } from '../state/engine/reads.js';
import { listAllUnits } from '../state/engine/unit-listing.js';
import type { Store } from '../state/engine/store.js';

/**
 * The name the provider knows a model's application by: its own in `default`, and behind its
 * model's key (`<key>.<name>`: no application name holds a dot) in any other model.
 */
export const firewallName = (model: string, application: string) => (model === DEFAULT_MODEL_KEY ? application : `${model}.${application}`);

/** Converges the controller's firewall to the state of every model given; `undefined` where the provider has none (local). */
export async function reconcileFirewall(
  stores: Store[],
  firewall: Firewall | undefined,
  controllerId: string,
): Promise<FirewallReport | undefined> {
  if (!firewall) return undefined;
  // Groups first, state after, so an application read below as exposed with ports keeps its
  // group whatever this listing missed. A group another run made after this listing, for an
  // application this run reads as not needing one, may be deleted again: harmless, its ports are
  // closed in that state, and a later run makes it again when they open.
  const existingGroups = await firewall.applicationGroups(controllerId);
  const state: Omit<FirewallState, 'existingGroups'> = { applications: [], units: [], machines: [] };
  for (const store of stores) {
    const name = (application: string) => firewallName(store.model, application);
    const withGroup = new Set(
      existingGroups.flatMap((group) => (store.model === DEFAULT_MODEL_KEY ? [group] : unqualified(store.model, group))),
    );
    const read = await readFirewallState(store, withGroup);
    // Units and machines renamed the same way, so that no two models' entities meet in the decision.
    state.applications.push(...read.applications.map((a) => ({ ...a, name: name(a.name) })));
    state.units.push(
      ...read.units.map((u) => ({
        ...u,
        name: name(u.name),
        application: name(u.application),
        ...(u.machine !== undefined ? { machine: name(u.machine) } : {}),
        ...(u.principal !== undefined ? { principal: name(u.principal) } : {}),
      })),
    );
    state.machines.push(...read.machines.map((m) => ({ ...m, id: name(m.id) })));
  }
  return firewall.applyFirewall(controllerId, desiredFirewall({ ...state, existingGroups }));
}

/** The application a group of the model serves, if the group is that model's. */
const unqualified = (model: string, group: string): string[] => (group.startsWith(`${model}.`) ? [group.slice(model.length + 1)] : []);

/**
 * The applications, and the units and machines of those that may need a group (exposed, or with
 * one already): the others' units cannot change the decision, so they are not read — but for
 * the principals of subordinates, which say where a subordinate runs.
 */
async function readFirewallState(store: Store, withGroup: Set<string>) {
  const applications = await getMany<Application>(store, await listAll(store, collections.applications(store.model)));
  const relevant = applications.filter((a) => a.exposed || withGroup.has(a.name));
  const units: Unit[] = [];
  for (const app of relevant) units.push(...(await getMany<Unit>(store, await listAllUnits(store, app))));
  const read = new Set(units.map((u) => u.name));
  const principals = [...new Set(units.flatMap((u) => (u.principal && !read.has(u.principal) ? [u.principal] : [])))];
  units.push(...(await getMany<Unit>(store, principals.map(refs.unit))));
  const machineIds = [...new Set(units.flatMap((u) => (u.machine ? [u.machine] : [])))];
  const machines = await getMany<Machine>(store, machineIds.map(refs.machine));
  return { applications, units, machines };
}
