// The simulated agents' thread: SimulatedMachines (the real machine and unit agents, hooks
// in-process) and their shared SQS polls, answering the provider's calls that the controller's
// provisioner makes through AgentsThread (threaded-agents.ts). On AWS each agent runs on its own
// instance; here they share this thread, so the controller's thread does only the controller's
// work.
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import type { StartInstanceRequest } from '#shared/provider/provider.js';
import { nodeHttp } from '../../../agent/http.js';
import { inProcessHooks, type InProcessCharm } from './in-process-hooks.js';
import { SharedHintPolls } from './shared-hint-polls.js';
import { SimulatedMachines } from './simulated-machines.js';
import { emit, serve, threadInit } from './thread-rpc.js';

/** What the controller's thread hands this one at start. */
export interface AgentsThreadInit {
  dataDir: string;
  sqsEndpoint: string;
  charm: InProcessCharm;
  idleIntervalMs: number;
  hintWorkers?: number;
  apiSockets: number;
  /** Whether to emit every agent's log lines (`log` events). */
  echoLogs: boolean;
}

/** What AgentsThread.stats() answers. */
export interface AgentsThreadStats {
  /** Machine agents running now. */
  machines: number;
  /** Receives the shared polls sent to the SQS server. */
  receives: number;
}

const init = threadInit<AgentsThreadInit>();
const sqs = createSqsClient({ endpoint: init.sqsEndpoint, region: 'local' });
const hints = new SharedHintPolls({
  sqs,
  idleIntervalMs: init.idleIntervalMs,
  ...(init.hintWorkers ? { workers: init.hintWorkers } : {}),
});
// The agents send hints too (a leader's claim tells its followers): those are heard here; the
// controller's sends come as `heard` requests.
hints.watchSends(sqs);
const machines = new SimulatedMachines({
  dataDir: init.dataDir,
  sqsEndpoint: init.sqsEndpoint,
  sqs,
  hints,
  // The time the hook ran, from this thread's clock (Date.now is the same in every thread).
  hookRunner: inProcessHooks(init.charm, (hook, unit) => emit('hook-ran', { hook, unit, at: Date.now() })),
  http: nodeHttp({ maxSockets: init.apiSockets }),
  ...(init.echoLogs ? { logEcho: (line: string) => emit('log', line) } : {}),
});

serve({
  startInstance: (request: StartInstanceRequest) => machines.startInstance(request),
  stopInstances: (instanceIds: string[]) => machines.stopInstances(instanceIds),
  listInstances: (controllerId: string) => machines.listInstances(controllerId),
  ended: () => machines.ended(),
  heard: (queueUrl: string) => hints.heard(queueUrl),
  stats: (): AgentsThreadStats => ({ machines: machines.size, receives: hints.receives }),
  stop: async () => {
    await machines.stopAll();
    await hints.stop();
    sqs.destroy();
  },
});
