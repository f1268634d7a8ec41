// A fault-injection seam over every I/O step of the controller's processes: the DynamoDB client
// and the SQS client (through the SDK's middleware stack, keyed by command name), the provider
// and the charm store (wrappers), and stream consumer handlers (a wrapper). Each call is a *step*, named
// `<process>:<call>#<n>` where n counts that call within that process since the seam was made.
//
// Armed at a step, the seam either fails the call with a transient error (what a throttled or
// unreachable service gives) or kills the process: it throws a Crash, and from then on every call
// that process makes throws a Crash too, so nothing after the kill point runs in that process,
// even work it had started in parallel. The harness restarts the process (`revive`, then new
// handler instances and stores, so no in-memory cache survives) as Lambda or a supervisor would.
//
// Production code needs nothing for this: each process is built on its own injectable clients
// and provider, as it is in production.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { CharmStore } from '#shared/charmstore/charm-store.js';
import type { InstanceInfo, Provider, StartInstanceRequest } from '#shared/provider/provider.js';

/** The process died at this step: the harness treats it as process death, never as an error to handle. */
export class Crash extends Error {
  constructor(readonly step: string) {
    super(`process killed at ${step}`);
    this.name = 'Crash';
  }
}

/** An injected transient failure; the name is the one DynamoDB and SQS give for a 500. */
export class InjectedFault extends Error {
  constructor(readonly step: string) {
    super(`injected failure at ${step}`);
    this.name = 'InternalServerError';
  }
}

export type Phase = 'before' | 'after';

/** One I/O call of one process: its `count`th call of `call`. */
export interface StepRef {
  process: string;
  call: string;
  count: number;
}

export interface FaultPoint extends StepRef {
  phase: Phase;
  action: 'kill' | 'fail';
}

export const stepName = (s: StepRef) => `${s.process}:${s.call}#${s.count}`;
export const pointName = (p: FaultPoint) => `${p.action} ${p.phase} ${stepName(p)}`;

export const isCrash = (e: unknown): e is Crash => e instanceof Crash;
export const isInjectedFault = (e: unknown): e is InjectedFault => e instanceof InjectedFault;

export class FaultSeam {
  /** Every call made, in order: the recording a matrix enumerates its points from. */
  readonly steps: StepRef[] = [];
  /** Points armed and not yet reached; each fires once. */
  private readonly armed: FaultPoint[] = [];
  /** Points that fired, in order. */
  readonly fired: FaultPoint[] = [];
  private readonly counts = new Map<string, number>();
  private readonly dead = new Set<string>();

  arm(point: FaultPoint): void {
    this.armed.push(point);
  }

  isDead(process: string): boolean {
    return this.dead.has(process);
  }

  /** The process is running again (a new instance): its calls go through, and keep counting. */
  revive(process: string): void {
    this.dead.delete(process);
  }

  /** Runs one I/O call of `process` through the seam. */
  async around<T>(process: string, call: string, run: () => Promise<T>): Promise<T> {
    if (this.dead.has(process)) throw new Crash(`${process}:${call} (already dead)`);
    const key = `${process}:${call}`;
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    const step: StepRef = { process, call, count };
    this.steps.push(step);
    this.trigger(step, 'before');
    const result = await run();
    // Killed meanwhile (a call it made in parallel hit a kill point): what it computed is lost.
    if (this.dead.has(process)) throw new Crash(`${stepName(step)} (died during the call)`);
    this.trigger(step, 'after');
    return result;
  }

  private trigger(step: StepRef, phase: Phase): void {
    const i = this.armed.findIndex(
      (p) => p.phase === phase && p.process === step.process && p.call === step.call && p.count === step.count,
    );
    if (i < 0) return;
    const [point] = this.armed.splice(i, 1) as [FaultPoint];
    this.fired.push(point);
    if (point.action === 'fail') throw new InjectedFault(stepName(step));
    this.dead.add(step.process);
    throw new Crash(stepName(step));
  }

  /** Every command `client` sends is a step of `process`, named by its command (GetItem, TransactWriteItems...). */
  attachDynamo(client: DynamoDBClient, process: string): DynamoDBClient {
    client.middlewareStack.add((next, context) => (args) => this.around(process, commandOf(context), () => next(args)), {
      step: 'initialize',
      name: 'faultSeam',
    });
    return client;
  }

  attachSqs(client: SQSClient, process: string): SQSClient {
    client.middlewareStack.add((next, context) => (args) => this.around(process, commandOf(context), () => next(args)), {
      step: 'initialize',
      name: 'faultSeam',
    });
    return client;
  }

  /** The provider, as seen by `process`: each of its three calls is a step. */
  wrapProvider(provider: Provider, process: string): Provider {
    return {
      startInstance: (request: StartInstanceRequest): Promise<InstanceInfo> =>
        this.around(process, 'startInstance', () => provider.startInstance(request)),
      stopInstances: (ids: string[]) => this.around(process, 'stopInstances', () => provider.stopInstances(ids)),
      listInstances: (controllerId: string) => this.around(process, 'listInstances', () => provider.listInstances(controllerId)),
    };
  }

  /**
   * The charm store, as seen by `process`: each call is a step (an upload's bytes are read as one
   * stream after openUpload, as S3's GetObject answers once and streams after).
   */
  wrapCharmStore(charms: CharmStore, process: string): CharmStore {
    return {
      put: (archive) => this.around(process, 'charms.put', () => charms.put(archive)),
      get: (key) => this.around(process, 'charms.get', () => charms.get(key)),
      downloadUrl: (key) => this.around(process, 'charms.downloadUrl', () => charms.downloadUrl(key)),
      uploadTarget: (sha256, size) => this.around(process, 'charms.uploadTarget', () => charms.uploadTarget(sha256, size)),
      openUpload: (sha256) => this.around(process, 'charms.openUpload', () => charms.openUpload(sha256)),
      adoptUpload: (sha256) => this.around(process, 'charms.adoptUpload', () => charms.adoptUpload(sha256)),
      discardUpload: (sha256) => this.around(process, 'charms.discardUpload', () => charms.discardUpload(sha256)),
    };
  }

  /** A handler invocation is a step too: killed before it, nothing ran; after it, its response is lost. */
  wrapHandler<E, R>(handler: (event: E) => Promise<R>, process: string): (event: E) => Promise<R> {
    return (event) => this.around(process, 'invoke', () => handler(event));
  }
}

const commandOf = (context: { commandName?: string }) => (context.commandName ?? 'unknown').replace(/Command$/, '');
