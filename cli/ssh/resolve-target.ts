// A `drover ssh`/`scp` target, resolved as Juju 3.6's sshMachine resolves one
// (https://github.com/juju/juju/blob/3.6/cmd/juju/ssh/ssh_machine.go): `<app>/leader` to the
// leader's unit, a unit to its machine (a subordinate's is its principal's), a machine to its
// instance. Read from status, in Juju's words when there is no such thing.
import { allUnits, type StatusDoc } from '#shared/domain/status-document.js';
import type { ApiClient } from '../client.js';
import { CliError } from '../errors.js';
import type { Target } from './ssh-arguments.js';

export interface ResolvedTarget {
  /** The account to reach: the target's, or Juju's `ubuntu`. */
  user: string;
  machine: string;
  /** The provider's instance: an EC2 instance id, or a local agent's. */
  instanceId: string;
}

const PENDING = new Set(['', 'pending']);

async function machineOfUnit(client: ApiClient, target: Target): Promise<string> {
  const entity = target.entity;
  if (entity.kind === 'machine') return entity.id;
  const doc =
    entity.kind === 'unit'
      ? await client.get<StatusDoc>('status', { unit: [entity.name] })
      : await client.get<StatusDoc>('status', { application: [entity.application] });
  const units = allUnits(doc);
  if (entity.kind === 'leader') {
    if (!doc.applications[entity.application]) throw new CliError(`application "${entity.application}" not found`);
    const leader = units.find((u) => u.application === entity.application && u.unit.leader);
    if (!leader) throw new CliError(`could not determine leader for "${entity.application}"`);
    return machineOf(units, leader.name);
  }
  return machineOf(units, entity.name);
}

function machineOf(units: ReturnType<typeof allUnits>, name: string): string {
  const found = units.find((u) => u.name === name);
  if (!found) throw new CliError(`unit "${name}" not found`);
  const host = found.principal ? units.find((u) => u.name === found.principal) : found;
  const machine = host?.unit.machine;
  if (!machine) throw new CliError(`unit "${name}" is not assigned to a machine`);
  return machine;
}

export async function resolveTarget(client: ApiClient, target: Target): Promise<ResolvedTarget> {
  const machine = await machineOfUnit(client, target);
  const doc = await client.get<StatusDoc>('status', { machine: [machine] });
  const found = doc.machines[machine];
  if (!found) throw new CliError(`machine ${machine} not found`);
  const instanceId = found['instance-id'];
  // Juju's network.NoAddressError: nothing to reach until the machine has its instance.
  if (PENDING.has(instanceId ?? ''))
    throw new CliError(`machine ${machine} has no available address(es) yet: it is still being provisioned`);
  return { user: target.user ?? 'ubuntu', machine, instanceId };
}
