// drover's `blocked-by`: for every entity that is Dying, what still holds it, in words, so that a
// user never has to guess why something does not go away (users' first complaint about Juju:
// "Troubleshooting removals", https://discourse.juju.is/t/troubleshooting-removals/1185).
import type { Application, Machine, Model, Relation, Unit } from './entities.js';
import type { ModelContents } from './plans/remove-model.js';

const list = (names: string[], max = 5) =>
  names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;

function agentHint(unit: Unit): string {
  if (unit.agentStatus.current === 'error') {
    return `its agent is in error (${unit.agentStatus.message ?? 'hook failed'}): run "drover resolved ${unit.name}"`;
  }
  return 'its agent, to run the stop hook and set it Dead';
}

export function unitBlockedBy(unit: Unit): string[] {
  if (unit.life !== 'dying') return [];
  const reasons = [
    ...unit.subordinates.map((s) => `subordinate unit ${s}`),
    ...unit.scopes.map((r) => `in scope of relation "${r}"`),
    // Its agent detaches each after running -storage-detaching (shared/domain/plans/unit-storage.ts).
    ...(unit.storageAttachments ?? []).map((id) => `storage ${id} attached`),
  ];
  return reasons.length ? reasons : [agentHint(unit)];
}

export function applicationBlockedBy(app: Application, relations: Relation[]): string[] {
  if (app.life !== 'dying') return [];
  const reasons: string[] = [];
  if (app.unitCount > 0) reasons.push(`${app.unitCount} unit${app.unitCount === 1 ? '' : 's'}`);
  for (const key of app.relations) {
    const relation = relations.find((r) => r.key === key);
    reasons.push(
      relation ? `relation "${key}" (${relation.unitCount} unit${relation.unitCount === 1 ? '' : 's'} in scope)` : `relation "${key}"`,
    );
  }
  return reasons;
}

export function relationBlockedBy(relation: Relation, unitsInScope: string[]): string[] {
  if (relation.life !== 'dying') return [];
  if (relation.unitCount === 0) return [];
  const named = unitsInScope.length ? `: ${list(unitsInScope)}` : '';
  return [`${relation.unitCount} unit${relation.unitCount === 1 ? '' : 's'} in scope${named}`];
}

export function machineBlockedBy(machine: Machine): string[] {
  if (machine.life === 'alive') return [];
  if (machine.principals.length) return machine.principals.map((u) => `unit ${u}`);
  if (machine.life === 'dying') {
    return [machine.instanceId ? 'its machine agent, to set it Dead' : 'the provisioner, to remove a machine that was never provisioned'];
  }
  return [machine.instanceId ? `the provisioner, to stop instance ${machine.instanceId}` : 'the provisioner, to remove it'];
}

const counted = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/**
 * A Dying model is held by what is left in it, which its cleanup destroys
 * (shared/state/operations/cleanup/model.ts), and, unless forced, by every unit in error: such a
 * unit stays until it is resolved, and so do its application, its machine and the model.
 */
export function modelBlockedBy(model: Model, left: { applications: Application[]; machines: Machine[]; units: Unit[] }): string[] {
  const inError = left.units.filter((u) => u.agentStatus.current === 'error');
  return modelBlockedByWhatIsLeft(model, {
    applications: { count: left.applications.length, first: left.applications.slice(0, 5).map((a) => a.name) },
    machines: { count: left.machines.length, first: left.machines.slice(0, 5).map((m) => m.id) },
    unitsInError: { count: inError.length, first: inError.slice(0, 5) },
  });
}

/** A few of each kind, in the order the model lists them, and how many there are. */
interface Few<T> {
  count: number;
  first: T[];
}

const few = (left: Few<string>) =>
  left.count <= 5 ? left.first.join(', ') : `${left.first.slice(0, 5).join(', ')} and ${left.count - 5} more`;

/** modelBlockedBy from the first five of each kind and their counts (what a paged status read keeps). */
export function modelBlockedByWhatIsLeft(
  model: Model,
  left: { applications: Few<string>; machines: Few<string>; unitsInError: Few<Unit> },
): string[] {
  if (model.life === 'alive') return [];
  const reasons: string[] = [];
  const { applications, machines, unitsInError } = left;
  if (applications.count) reasons.push(`${counted(applications.count, 'application')}: ${few(applications)}`);
  if (machines.count) reasons.push(`${counted(machines.count, 'machine')}: ${few(machines)}`);
  if (!model.force) {
    // A few are enough to tell the user what to run; the count says the rest.
    for (const unit of unitsInError.first.slice(0, 5))
      reasons.push(`unit ${unit.name}: ${agentHint(unit)}, or "drover destroy-model ${model.name} --force"`);
    if (unitsInError.count > 5) reasons.push(`${counted(unitsInError.count - 5, 'more unit')} in error`);
  }
  return reasons.length ? reasons : ['its cleanup, to remove the model'];
}

/**
 * The same for `drover stuck`, from the first few of each kind left (`shown` of them: a full one
 * means there may be more). Units in error are stuck entities of their own there, with their hint.
 */
export function modelLeftBy(model: Model, left: ModelContents, shown: number): string[] {
  if (model.life === 'alive') return [];
  const few = (names: string[]) => (names.length >= shown ? `${names.join(', ')} and maybe more` : names.join(', '));
  const reasons: string[] = [];
  if (left.applications.length) reasons.push(`applications: ${few(left.applications)}`);
  if (left.machines.length) reasons.push(`machines: ${few(left.machines)}`);
  if (left.cleanups.length) reasons.push(`cleanups: ${few(left.cleanups)}`);
  return reasons.length ? reasons : ['its cleanup, to remove the model'];
}
