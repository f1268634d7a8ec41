// The provisioner's records on a machine, and the user's remedies for provisioning errors.
//
// what-we-run-and-why.txt: "When the provisioner fails to start a machine, it should ensure that
// (1) the machine has no instance id set and (2) the machine has an error status set that
// communicates the nature of the problem", and the user "can do a simple `juju resolved 14`" or
// "`juju resolved 14 --constraints "mem=2G cpu-power=400"`, which allows her to completely
// replace the machine's constraints as well as marking the machine for reprovisioning attention".
import type { Constraints } from '../constraints.js';
import type { Machine } from '../entities.js';
import { DroverError, invalidArgument, notFound } from '../errors.js';
import { done, refs, type Plan } from '../plan.js';
import { statusLogEntry } from '../status-log.js';
import { INSTANCE_ERROR } from './machine-status.js';

export const PROVISIONING_ERROR = 'provisioning error';

export interface InstanceRecord {
  instanceId: string;
  attempt: number;
  hardware?: string;
  addresses?: string[];
}

export type RecordInstanceResult = 'recorded' | 'already-recorded' | { conflict: string };

/**
 * Records the instance started for a machine. Asserts that no instance is recorded yet and that the
 * attempt is the one the provisioner started, so a late, duplicate provisioner can never attach a
 * second instance: it learns of the conflict and stops its own instance.
 */
export function planRecordInstance(machine: Machine | undefined, record: InstanceRecord, now: string): Plan<RecordInstanceResult> {
  if (!machine) return done({ conflict: 'machine removed' });
  if (machine.instanceId === record.instanceId) return done('already-recorded');
  if (machine.instanceId) return done({ conflict: `machine ${machine.id} already has instance ${machine.instanceId}` });
  if (machine.provisioningAttempt !== record.attempt)
    return done({ conflict: `machine ${machine.id} is at provisioning attempt ${machine.provisioningAttempt}` });
  return {
    changes: [
      {
        op: 'update',
        ref: refs.machine(machine.id),
        set: {
          instanceId: record.instanceId,
          instanceStatus: { current: 'running', message: 'running', since: now },
          ...(record.hardware ? { hardware: record.hardware } : {}),
          addresses: record.addresses ?? [],
        },
        // A Dying machine keeps its place in the stuck index; only an Alive one leaves it.
        ...(machine.life === 'alive' ? { stuck: 'clear' as const } : {}),
        expect: { absent: ['instanceId'], equals: { provisioningAttempt: record.attempt }, life: machine.life },
      },
      statusLogEntry(machine.id, 'machine', { current: 'running', message: 'running' }, now),
    ],
    result: 'recorded',
  };
}

export function planProvisioningError(
  machine: Machine | undefined,
  error: { message: string; transient: boolean; attempt: number },
  now: string,
): Plan<void> {
  if (!machine || machine.instanceId || machine.provisioningAttempt !== error.attempt) return done(undefined);
  return {
    changes: [
      {
        op: 'update',
        ref: refs.machine(machine.id),
        set: { instanceStatus: { current: PROVISIONING_ERROR, message: error.message, since: now, data: { transient: error.transient } } },
        stuck: 'mark',
        expect: { absent: ['instanceId'], equals: { provisioningAttempt: error.attempt } },
      },
      statusLogEntry(machine.id, 'machine', { current: PROVISIONING_ERROR, message: error.message }, now),
    ],
    result: undefined,
  };
}

/**
 * The instance statuses a user may retry from: the provisioner could not start an instance
 * (`provisioning error`), or the one it started is gone or its agent keeps dying (`error`, set by
 * machine-status.ts). Both are errors in `status`, so both are answered, whatever their message.
 */
const RETRYABLE = new Set([PROVISIONING_ERROR, INSTANCE_ERROR]);

/**
 * Marks a machine for another provisioning attempt, optionally replacing its constraints. A machine
 * whose instance is in error loses that instance id: the next attempt starts a new instance (on the
 * local provider, a new agent in the same machine directory) with a new credential, and the old
 * attempt's credential is no longer accepted.
 */
export function planRetryProvisioning(id: string, machine: Machine | undefined, now: string, constraints?: Constraints): Plan<void> {
  if (!machine) throw notFound(`machine ${id} not found`);
  const inError = RETRYABLE.has(machine.instanceStatus.current);
  if (constraints && machine.instanceId && !inError) {
    throw invalidArgument(`updating machine "${id}": cannot set constraints: machine is already provisioned`);
  }
  if (machine.life !== 'alive') throw new DroverError('not-alive', `machine ${id} is not found or not alive`);
  if (!inError) {
    throw invalidArgument(`machine ${id} is not in an error state (${machine.instanceStatus.current})`);
  }
  const attempt = { provisioningAttempt: machine.provisioningAttempt };
  return {
    changes: [
      {
        op: 'update',
        ref: refs.machine(id),
        set: {
          provisioningAttempt: machine.provisioningAttempt + 1,
          instanceStatus: { current: 'pending', since: now },
          ...(constraints ? { constraints } : {}),
        },
        ...(machine.instanceId ? { unset: ['instanceId'] } : {}),
        stuck: 'clear',
        // The instance in error is the one the user saw: a provisioner that replaced it meanwhile wins.
        expect: machine.instanceId
          ? {
              life: 'alive',
              equals: { ...attempt, instanceId: machine.instanceId, 'instanceStatus.current': machine.instanceStatus.current },
            }
          : { life: 'alive', absent: ['instanceId'], equals: attempt },
      },
      statusLogEntry(id, 'machine', { current: 'pending' }, now),
    ],
    result: undefined,
  };
}
