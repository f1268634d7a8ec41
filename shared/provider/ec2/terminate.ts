// Terminating instances, some of which may be gone already: EC2 fails the whole call when any id
// is unknown (InvalidInstanceID.NotFound) and names the unknown ones, so those are dropped and the
// rest tried again; a message that names none of them falls back to one call per instance. Used
// by the provisioner (ec2-provider.ts) and by the stack's tear-down (shared/provisioner/tear-down.ts).
import { TerminateInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { awsErrorCode, toProviderError } from './errors.js';
import { errorMessage } from '../../domain/errors.js';

/** TerminateInstances' limit per call. */
const TERMINATE_BATCH = 1000;

export async function terminateInstances(client: EC2Client, instanceIds: string[]): Promise<void> {
  const ids = [...new Set(instanceIds.filter(Boolean))];
  for (let i = 0; i < ids.length; i += TERMINATE_BATCH) await terminateBatch(client, ids.slice(i, i + TERMINATE_BATCH));
}

async function terminateBatch(client: EC2Client, batch: string[]): Promise<void> {
  let remaining = batch;
  while (remaining.length > 0) {
    try {
      await client.send(new TerminateInstancesCommand({ InstanceIds: remaining }));
      return;
    } catch (e) {
      if (awsErrorCode(e) !== 'InvalidInstanceID.NotFound') throw toProviderError(e, 'cannot terminate instances');
      const named = new Set(errorMessage(e).match(/i-[0-9a-f]+/g) ?? []);
      const rest = remaining.filter((id) => !named.has(id));
      if (rest.length === remaining.length) return terminateEach(client, remaining);
      remaining = rest;
    }
  }
}

async function terminateEach(client: EC2Client, ids: string[]): Promise<void> {
  for (const id of ids) {
    try {
      await client.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
    } catch (e) {
      if (awsErrorCode(e) !== 'InvalidInstanceID.NotFound') throw toProviderError(e, 'cannot terminate instances');
    }
  }
}
