// The whole controller on one table, every process on its own clients through one fault seam
// (fault-seam.ts), driven step by step: the API (user commands), the stream consumers
// (provisioner, changes: functions/stream-consumers.ts) fed from the table's real stream (fault-stream.ts), their
// schedules, and a model agent per live instance (fault-agents.ts). A process the seam kills is
// restarted as its host would: a Lambda gets a new instance and the batch again from the
// checkpoint; an agent restarts with its disk; a user whose command died runs it again.
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListQueuesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { createChangesHandler } from '../../functions/changes/handler.js';
import { sweep } from '../../functions/cleanup/handler.js';
import { createProvisionerHandler, createReconcileHandler } from '../../functions/provisioner/handler.js';
import { ATTR } from '#shared/state/engine/keys.js';
import { recordMatches, STREAM_CONSUMERS, type StreamConsumerName } from '../../functions/stream-consumers.js';
import { DroverError, errorMessage, errorStack } from '#shared/domain/errors.js';
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import { derivedAgentCredentials, newAgentCredentialKey } from '#shared/provisioner/agent-credentials.js';
import type { ProvisionerDeps } from '#shared/provisioner/deps.js';
import { sqsMachineQueues } from '#shared/provisioner/sqs-machine-queues.js';
import { localCredentials } from '#shared/state/engine/local-credentials.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { ModelAgent, type AgentDisk, type HookRuns } from './fault-agents.js';
import type { HintChaos } from './fault-hints.js';
import { MemoryProvider } from './fault-provider.js';
import { Crash, isCrash, isInjectedFault, type FaultSeam } from './fault-seam.js';
import { StreamTap, type StreamHandler } from './fault-stream.js';
import { checkInvariants, LifeHistory } from './invariants.js';
import { readModelState, type ModelState } from './model-state.js';
import { silentLogger } from './silent-logger.js';

const NO_ARCHIVES = localCharmStore(join(tmpdir(), 'drover-fault-world-charms'));

export const CONSUMERS = STREAM_CONSUMERS.map((c) => c.name);

/** Rounds of every consumer and agent doing its part before a flow step is declared stuck. */
const MAX_ROUNDS = 40;
/** Times a user runs a command again after it died under them. */
const MAX_COMMAND_TRIES = 5;

export interface WorldOptions {
  dynamoEndpoint: string;
  sqsEndpoint: string;
  seam: FaultSeam;
  /** This consumer gets every record twice (fault-stream.ts). */
  duplicateDeliveries?: StreamConsumerName;
  /** Hints misdelivered between the changes function and SQS. */
  hints?: HintChaos;
}

interface RunningAgent {
  agent: ModelAgent;
  disk: AgentDisk;
  queueUrl: string;
}

export class World {
  readonly provider = new MemoryProvider();
  readonly hookRuns: HookRuns = new Map();
  readonly controllerId = `crash-${randomUUID().slice(0, 8)}`;
  /** Broken invariants and errors that are neither injected nor a refusal: each one fails the run. */
  readonly problems: string[] = [];
  /** Restarts of processes the seam killed. */
  restarts = 0;
  /** Called when everything is quiet, before the agents' resync: hints held back (delayed) go now. */
  hintsReleased?: () => Promise<void>;
  /** The normalised table after each converged step of the flow (normalisedDump). */
  readonly snapshots: { step: string; items: unknown[] }[] = [];
  private readonly credentials = derivedAgentCredentials(newAgentCredentialKey());
  private readonly history = new LifeHistory();
  private readonly agents = new Map<string, RunningAgent>();
  private readonly clients: { destroy(): void }[] = [];
  readonly tap: StreamTap;

  private constructor(
    readonly options: WorldOptions,
    /** The test's own view of the table: never faulted. */
    readonly observer: Store,
  ) {
    this.tap = new StreamTap({ endpoint: options.dynamoEndpoint, table: observer.table, dynamo: observer.client, seam: options.seam });
    const hints = options.hints;
    if (hints) this.hintsReleased = () => hints.release();
    // Each consumer with its mapping's filter, in batches of 10: small enough that a flow step
    // takes several deliveries, each a place to crash.
    const start: Record<StreamConsumerName, () => StreamHandler> = {
      provisioner: () => createProvisionerHandler(this.provisionerDeps()),
      changes: () =>
        createChangesHandler({
          store: this.storeFor('changes'),
          sqs: hints ? hints.attach(this.sqsFor('changes')) : this.sqsFor('changes'),
          controllerId: this.controllerId,
          logger: silentLogger,
        }),
    };
    for (const consumer of STREAM_CONSUMERS)
      this.tap.add({
        name: consumer.name,
        batchSize: 10,
        filter: (record) => recordMatches(consumer.filter, record),
        duplicates: options.duplicateDeliveries === consumer.name,
        start: start[consumer.name],
      });
  }

  static async create(options: WorldOptions): Promise<World> {
    const client = new DynamoDBClient({ endpoint: options.dynamoEndpoint, region: 'local', credentials: localCredentials() });
    const observer = createStore({ table: `crash-${randomUUID()}`, client, cache: false });
    await ensureTable(client, observer.table);
    await ensureModel(observer);
    const world = new World(options, observer);
    world.clients.push(client);
    return world;
  }

  async destroy(): Promise<void> {
    this.tap.destroy();
    await this.observer.client.send(new DeleteTableCommand({ TableName: this.observer.table })).catch(() => undefined);
    for (const c of this.clients) c.destroy();
  }

  get seam(): FaultSeam {
    return this.options.seam;
  }

  /** A new store for an instance of `process`: its own client through the seam, an empty cache. */
  storeFor(process: string): Store {
    const client = new DynamoDBClient({ endpoint: this.options.dynamoEndpoint, region: 'local', credentials: localCredentials() });
    this.clients.push(client);
    return createStore({ table: this.observer.table, client: this.seam.attachDynamo(client, process) });
  }

  sqsFor(process: string): SQSClient {
    const client = createSqsClient({ endpoint: this.options.sqsEndpoint, region: 'us-east-1' });
    this.clients.push(client);
    return this.seam.attachSqs(client, process);
  }

  private provisionerDeps(process = 'provisioner'): ProvisionerDeps {
    return {
      store: this.storeFor(process),
      provider: this.seam.wrapProvider(this.provider, process),
      queues: sqsMachineQueues(this.sqsFor(process), this.controllerId),
      credentials: this.credentials,
      controllerId: this.controllerId,
      apiUrl: 'http://127.0.0.1:1/api',
      // One machine at a time, so every run meets the steps in the same order; no waiting.
      policy: { startAttempts: 2, retryDelayMs: 1, transientErrorRetryMs: 0, missingInstanceGraceMs: 0, concurrency: 1 },
    };
  }

  /**
   * A user command through the API's state operations (what its route calls), run again if the
   * request died or failed; a refusal of a repeat is the answer a user would get (the first try
   * committed), a refusal of the first try is the flow's mistake.
   */
  async command<T>(name: string, run: (store: Store) => Promise<T>): Promise<T | DroverError> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.guard('api', () => run(this.storeFor('api')));
      } catch (e) {
        if (e instanceof DroverError && attempt > 1) return e;
        if (!(e instanceof Crash || isInjectedFault(e)) || attempt >= MAX_COMMAND_TRIES) {
          throw new Error(`${name}: ${errorMessage(e)}`);
        }
      }
    }
  }

  /** Runs `body` as `process`; a kill surfaces as a Crash (whatever the body made of it), and the process is revived. */
  private async guard<T>(process: string, body: () => Promise<T>): Promise<T> {
    try {
      const result = await body();
      if (this.seam.isDead(process)) throw new Crash(`${process} (died, and its caller carried on)`);
      return result;
    } catch (e) {
      if (isCrash(e) || this.seam.isDead(process)) {
        this.seam.revive(process);
        this.restarts++;
        throw e instanceof Crash ? e : new Crash(process);
      }
      throw e;
    }
  }

  /** One turn of the agent of every live instance, machine by machine. */
  private async agentsTurn(resync: boolean): Promise<void> {
    const live = new Map(this.provider.live().map((i) => [i.info.machineId, i]));
    for (const id of this.agents.keys()) if (!live.has(id)) this.agents.delete(id); // the instance went, and its disk
    for (const [machineId, instance] of [...live].sort(([a], [b]) => Number(a) - Number(b))) {
      const process = `agent-${machineId}`;
      let running = this.agents.get(machineId);
      if (!running) {
        running = { disk: new Map(), queueUrl: instance.request.agent.queueUrl } as RunningAgent;
        running.agent = this.newAgent(process, machineId, running);
        this.agents.set(machineId, running);
      }
      try {
        await this.guard(process, () => running.agent.turn({ resync }));
      } catch (e) {
        if (isCrash(e)) {
          running.agent = this.newAgent(process, machineId, running);
          continue;
        }
        if (isInjectedFault(e)) continue; // retried next turn
        // A refusal: a real agent logs it and tries again later.
        if (e instanceof DroverError) continue;
        this.problems.push(`agent of machine ${machineId}: ${errorStack(e)}`);
      }
    }
  }

  private newAgent(process: string, machineId: string, running: RunningAgent): ModelAgent {
    return new ModelAgent(
      // The model's charms have no archives, so the charm store is never asked for one.
      { store: this.storeFor(process), charms: NO_ARCHIVES, machine: machineId },
      this.sqsFor(process),
      running.queueUrl,
      running.disk,
      this.hookRuns,
    );
  }

  /** The schedules (provisioner's full reconcile, cleanup's sweep): what covers a lost record on AWS. */
  private async schedules(): Promise<void> {
    const schedules: [string, () => Promise<unknown>][] = [
      ['provisioner-schedule', () => createReconcileHandler(this.provisionerDeps('provisioner-schedule'))()],
      ['cleanup-schedule', () => sweep(this.storeFor('cleanup-schedule'))],
    ];
    for (const [process, run] of schedules) {
      try {
        await this.guard(process, run);
      } catch (e) {
        if (isCrash(e) || isInjectedFault(e)) continue;
        this.problems.push(`${process}: ${errorStack(e)}`);
      }
    }
  }

  async state(): Promise<ModelState> {
    return readModelState(this.observer);
  }

  /** Every consumer and agent does its part, round after round, until nothing changes. */
  async converge(step: string): Promise<ModelState> {
    let scheduled = false;
    let state = await this.state();
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const before = JSON.stringify(state.items);
      const recordsBefore = this.tap.records.length;
      for (const consumer of CONSUMERS) await this.tap.drain(consumer);
      // A handler that throws what was not injected fails its whole batch: a bug, even if a retry cures it.
      this.problems.push(...this.tap.unexpectedErrors.splice(0));
      await this.agentsTurn(scheduled);
      state = await this.state();
      for (const v of checkInvariants(state, this.history)) this.problems.push(`after ${step}, round ${round}: ${v}`);
      await this.tap.refresh();
      const quiet =
        JSON.stringify(state.items) === before &&
        this.tap.records.length === recordsBefore &&
        CONSUMERS.every((c) => this.tap.pending(c) === 0);
      if (!quiet) {
        scheduled = false;
        continue;
      }
      if (scheduled) {
        this.snapshots.push({ step, items: normalisedDump(state.items, this.controllerId) });
        return state;
      }
      // Quiet: the schedules run (on AWS they run every few minutes anyway), then one more round
      // in which the agents resync.
      await this.schedules();
      await this.hintsReleased?.();
      scheduled = true;
    }
    this.problems.push(`${step}: still changing after ${MAX_ROUNDS} rounds`);
    return state;
  }

  /** The machine queues of this controller that still exist. */
  async machineQueues(): Promise<string[]> {
    const sqs = createSqsClient({ endpoint: this.options.sqsEndpoint, region: 'us-east-1' });
    try {
      const out = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: `drover-${this.controllerId}-m-` }));
      return out.QueueUrls ?? [];
    } finally {
      sqs.destroy();
    }
  }

  agentOf(machineId: string): ModelAgent | undefined {
    return this.agents.get(machineId)?.agent;
  }
}

/**
 * The table as two runs of the same flow must leave it: times, the model's uuid, agent credential
 * hashes (from a random key) and the controller's id (in queue URLs) are left out; everything else
 * must match.
 */
export function normalisedDump(items: Record<string, unknown>[], controllerId: string): unknown[] {
  const iso = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
  // Not the model's revision: it moves once per batch delivered, so a batch delivered twice moves
  // it twice, as it may (shared/state/operations/model-revision.ts); nothing decides from it.
  const state = items.filter((item) => item[ATTR.kind] !== 'modelRevision');
  return JSON.parse(
    JSON.stringify(state, (key, value: unknown) => {
      if (key === 'agentCredentialHash') return '<hash>';
      if (key === 'expiresAt') return '<time>';
      if (key === 'uuid') return '<uuid>';
      return typeof value === 'string' ? value.replace(iso, '<time>').replaceAll(controllerId, '<controller>') : value;
    }),
  ) as unknown[];
}
