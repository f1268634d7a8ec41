// Faults for the model property (test/integration/model-property.test.ts): a sequence's two
// processes each make their DynamoDB calls through a client of their own, and the sequence's
// fault plan names calls by their number among the calls both processes make during its steps.
// At a planned call the process either sees a transient failure (before the call is sent, or
// after it took effect: the ambiguous case a timeout gives) or dies there: that call and every
// later call of the process fail, so nothing it was doing goes on, and after the step it is
// restarted with nothing in memory (a new store, an empty snapshot cache).
//
// The plan is part of the generated sequence, so fast-check shrinks it with the steps; which
// call a number reaches depends a little on how a pair's calls interleave.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { Crash, InjectedFault, type Phase } from './fault-seam.js';

export interface PlannedFault {
  /** The call's number among the calls the sequence's processes make, from 0. */
  call: number;
  action: 'kill' | 'fail';
  phase: Phase;
}

const plannedFault: fc.Arbitrary<PlannedFault> = fc.record({
  call: fc.nat(149),
  action: fc.constantFrom('kill' as const, 'fail' as const),
  phase: fc.constantFrom('before' as const, 'after' as const),
});

/**
 * No fault in a quarter of the sequences (the logic alone), else one to three, over about the
 * first 150 calls (a sequence's steps make 60-200).
 */
export const faultPlan: fc.Arbitrary<PlannedFault[]> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<PlannedFault[]>([]) },
  { weight: 3, arbitrary: fc.array(plannedFault, { minLength: 1, maxLength: 3 }) },
);

export const isInjected = (e: unknown): e is Crash | InjectedFault => e instanceof Crash || e instanceof InjectedFault;

/** Faults injected over a whole run, for the figures a soak prints. */
export const faultFigures = { kills: 0, failures: 0, sequencesWithFaults: 0 };

/** One lane's faults: armed for one sequence at a time, on that lane's process clients. */
export class LaneFaults {
  private plan = new Map<number, PlannedFault>();
  private calls = 0;
  private fired = 0;
  /** Off while the sequence is set up, checked and quiesced: only its steps see faults. */
  active = false;
  /** Processes killed during the current step, restarted once it ends. */
  readonly dead = new Set<number>();

  arm(plan: PlannedFault[]): void {
    this.plan = new Map(plan.map((f) => [f.call, f]));
    this.calls = 0;
    this.fired = 0;
    this.dead.clear();
  }

  /** Ends the sequence: counts it among those that had a fault. */
  disarm(): void {
    if (this.fired > 0) faultFigures.sequencesWithFaults++;
    this.active = false;
    this.plan.clear();
  }

  /** Routes the client's calls, as the process numbered `process`, through the plan. */
  install(client: DynamoDBClient, process: number): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (!this.active) return next(args);
        const command = context.commandName ?? 'call';
        if (this.dead.has(process)) throw new Crash(`process ${process}: ${command} (already dead)`);
        const number = this.calls++;
        const fault = this.plan.get(number);
        if (!fault) return next(args);
        const point = `${fault.action} ${fault.phase} call ${number} (${command}) of process ${process}`;
        if (fault.phase === 'after') await next(args);
        this.fired++;
        if (fault.action === 'kill') {
          faultFigures.kills++;
          this.dead.add(process);
          throw new Crash(point);
        }
        faultFigures.failures++;
        throw new InjectedFault(point);
      },
      // Above the SDK's retries: an injected failure reaches the caller as the last attempt's would.
      { step: 'initialize', name: 'propertyFaults' },
    );
  }
}
