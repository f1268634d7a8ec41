// The provisioner's MachineQueues over SQS: each machine gets its queue before its agent starts
// (the agent long-polls it from the first moment), and loses it once the machine is removed.
import type { SQSClient } from '@aws-sdk/client-sqs';
import { deleteMachineQueue, ensureMachineQueue } from '../messaging/machine-queues.js';
import { admitOnlyInstance } from '../messaging/queue-instance-tag.js';
import type { MachineQueues } from './deps.js';

export function sqsMachineQueues(sqs: SQSClient, controllerId: string): MachineQueues {
  return {
    ensure: (model, machineId) => ensureMachineQueue(sqs, controllerId, model, machineId),
    remove: (model, machineId) => deleteMachineQueue(sqs, controllerId, model, machineId),
    admitOnly: (queueUrl, instanceId) => admitOnlyInstance(sqs, queueUrl, instanceId),
  };
}
