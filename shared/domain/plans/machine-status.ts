// The provisioner's finding that a machine's recorded instance no longer exists at the provider
// (terminated from the console, a local agent process that died). Juju shows such a machine's
// instance status as an error; the machine itself stays until the user removes it, because only
// the user can say whether its units should go too.
import type { Machine } from '../entities.js';
import { done, refs, type Change, type Plan } from '../plan.js';
import { statusLogEntry } from '../status-log.js';

export const INSTANCE_ERROR = 'error';

export const instanceMissingMessage = (instanceId: string) => `instance "${instanceId}" missing`;

/** The machine's instance status set to an error, if the machine still has that instance. */
const instanceError = (machineId: string, instanceId: string, message: string, now: string): Change => ({
  op: 'update',
  ref: refs.machine(machineId),
  set: { instanceStatus: { current: INSTANCE_ERROR, message, since: now } },
  expect: { equals: { instanceId } },
});

export type MarkInstanceMissingResult = 'marked' | 'already-marked' | 'not-applicable';

export function planMarkInstanceMissing(machine: Machine | undefined, instanceId: string, now: string): Plan<MarkInstanceMissingResult> {
  // Removed, or the machine has another instance (or none) by now: the finding is stale.
  if (!machine || machine.instanceId !== instanceId) return done('not-applicable');
  const message = instanceMissingMessage(instanceId);
  if (machine.instanceStatus.current === INSTANCE_ERROR && machine.instanceStatus.message === message) return done('already-marked');
  return { changes: [instanceError(machine.id, instanceId, message, now)], result: 'marked' };
}

export type InstanceStatusResult = 'set' | 'unchanged' | 'not-applicable';

/**
 * The machine's agent keeps dying and the provider restarts it only after a back-off (the local
 * provider, as systemd does for Juju's agents): `error` with the provider's account of it, so
 * `status` says why the machine's units make no progress and `retry-provisioning` may start over.
 */
export function planAgentCrashLooping(
  machine: Machine | undefined,
  instanceId: string,
  message: string,
  now: string,
): Plan<InstanceStatusResult> {
  if (!machine || machine.instanceId !== instanceId) return done('not-applicable');
  if (machine.instanceStatus.current === INSTANCE_ERROR && machine.instanceStatus.message === message) return done('unchanged');
  return {
    changes: [
      instanceError(machine.id, instanceId, message, now),
      statusLogEntry(machine.id, 'machine', { current: INSTANCE_ERROR, message }, now),
    ],
    result: 'set',
  };
}

/** The instance in error (missing, or its agent crash-looping) runs again: back to `running`. */
export function planInstanceRunningAgain(machine: Machine | undefined, instanceId: string, now: string): Plan<InstanceStatusResult> {
  if (!machine || machine.instanceId !== instanceId) return done('not-applicable');
  if (machine.instanceStatus.current !== INSTANCE_ERROR) return done('unchanged');
  return {
    changes: [
      {
        op: 'update',
        ref: refs.machine(machine.id),
        set: { instanceStatus: { current: 'running', message: 'running', since: now } },
        // Only the error we saw: a retry-provisioning meanwhile took the instance away.
        expect: { equals: { instanceId, 'instanceStatus.current': INSTANCE_ERROR } },
      },
      statusLogEntry(machine.id, 'machine', { current: 'running', message: 'running' }, now),
    ],
    result: 'set',
  };
}
