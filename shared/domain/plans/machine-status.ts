// The provisioner's finding that a machine's recorded instance no longer exists at the provider
// (terminated from the console, a local agent process that died). Juju shows such a machine's
// instance status as an error; the machine itself stays until the user removes it, because only
// the user can say whether its units should go too.
import type { Machine } from '../entities.js';
import { done, refs, type Plan } from '../plan.js';

export const INSTANCE_ERROR = 'error';

export const instanceMissingMessage = (instanceId: string) => `instance "${instanceId}" missing`;

export type MarkInstanceMissingResult = 'marked' | 'already-marked' | 'not-applicable';

export function planMarkInstanceMissing(machine: Machine | undefined, instanceId: string, now: string): Plan<MarkInstanceMissingResult> {
  // Removed, or the machine has another instance (or none) by now: the finding is stale.
  if (!machine || machine.instanceId !== instanceId) return done('not-applicable');
  const message = instanceMissingMessage(instanceId);
  if (machine.instanceStatus.current === INSTANCE_ERROR && machine.instanceStatus.message === message) return done('already-marked');
  return {
    changes: [
      {
        op: 'update',
        ref: refs.machine(machine.id),
        set: { instanceStatus: { current: INSTANCE_ERROR, message, since: now } },
        expect: { equals: { instanceId } },
      },
    ],
    result: 'marked',
  };
}
