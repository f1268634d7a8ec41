// The crash-point matrix (docs/reliability.md, "Crash-point matrix"). The flow of
// test/support/fault-flow.ts (deploy → provision → agent start → hooks → relate → destroy →
// cleanup → remove) runs once through a recording seam: its steps are every I/O call each
// process made (DynamoDB and SQS commands, provider calls, stream handler invocations), by
// process, call and count. Then, for each step and each side of it (before the call; after it,
// its result lost), the flow runs again on a fresh table with that process killed there and
// restarted as its host would restart it, and must converge: every invariant holds after every
// round, every unit and relation reaches its expected state, no instance is duplicated or left
// running, no queue is left, install and start run once, no relation data is lost.
//
// Agents are the model agents of test/support/fault-agents.ts (the agent API's routes, no hook
// processes); the provider is the in-memory one of test/support/fault-provider.ts.
//
// Each step is also failed once with a transient error (the process lives, and retries or reports
// the failure as its host expects). `npm test` runs a deterministic sample of the kill points
// (DROVER_CRASH_POINTS, default 8, spread evenly over the recording, every process kind
// included) and a quarter as many failure points; the soak (test/support/soak.ts) runs them all in
// a random order (its seed printed; DROVER_CRASH_SEED replays it) until its time bound;
// DROVER_CRASH_ONLY="kill after provisioner:startInstance#1" runs the points so named (a failure
// prints its point's name).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runFlow } from '../support/fault-flow.js';
import { FaultSeam, pointName, type FaultPoint, type StepRef } from '../support/fault-seam.js';
import { World } from '../support/fault-world.js';
import { SOAK, SOAK_CRASH_MS, soakTimeout } from '../support/soak.js';
import { useSqsServer } from '../support/sqs.js';
import { dynamoEndpoint } from '../support/dynamodb.js';
import { errorStack } from '#shared/domain/errors.js';

/**
 * Kill points in `npm test`. Each point is a whole flow (about 15 s on two cores shared with the
 * rest of the suite): 8, with 2 failure points and one per process kind not yet among them, keep
 * the file to a few minutes of CI; the soak runs them all.
 */
const SAMPLE = Number(process.env.DROVER_CRASH_POINTS ?? 8);
/** Runs side by side; each runs its points one step at a time, so lanes do not change what a run meets. */
const LANES = Number(process.env.DROVER_CRASH_LANES ?? 2);
/** Only the points so named, comma-separated (e.g. "kill after provisioner:startInstance#1"): to replay a failure. */
const ONLY = process.env.DROVER_CRASH_ONLY;

const sqs = useSqsServer();

async function runWith(seam: FaultSeam): Promise<World> {
  const world = await World.create({ dynamoEndpoint: await dynamoEndpoint(), sqsEndpoint: sqs.endpoint, seam });
  try {
    await runFlow(world);
  } catch (e) {
    world.problems.push(`the flow failed: ${errorStack(e)}`);
  } finally {
    await world.destroy();
  }
  return world;
}

const kindOf = (s: StepRef) => s.process.replace(/-\d+$/, '');

/** Every kill point of the recording: each step, before and after. */
function killPoints(steps: StepRef[]): FaultPoint[] {
  return steps.flatMap((s) => (['before', 'after'] as const).map((phase): FaultPoint => ({ ...s, phase, action: 'kill' })));
}

/** Every transient failure point: each call fails once (the process lives on and retries or reports it). */
function failPoints(steps: StepRef[]): FaultPoint[] {
  return steps.map((s): FaultPoint => ({ ...s, phase: 'before', action: 'fail' }));
}

/** Every point, in the order a seed gives. */
function shuffled(points: FaultPoint[], seed: number): FaultPoint[] {
  const [order] = fc.sample(fc.shuffledSubarray(points, { minLength: points.length, maxLength: points.length }), { seed, numRuns: 1 });
  return order!;
}

/** `n` points spread evenly over the recording, and the first of each process kind not among them. */
function samplePoints(points: FaultPoint[], n: number): FaultPoint[] {
  if (points.length <= n) return points;
  const chosen = new Set<FaultPoint>();
  for (let i = 0; i < n; i++) chosen.add(points[Math.floor((i * points.length) / n)]!);
  const kinds = new Set([...chosen].map(kindOf));
  for (const p of points) {
    if (!kinds.has(kindOf(p))) {
      kinds.add(kindOf(p));
      chosen.add(p);
    }
  }
  return points.filter((p) => chosen.has(p));
}

describe('the crash-point matrix', () => {
  it(
    'converges after a kill of the responsible process at every I/O step of the flow',
    async () => {
      const recording = new FaultSeam();
      const clean = await runWith(recording);
      expect(clean.problems).toEqual([]);
      const kinds = new Set(recording.steps.map(kindOf));
      // The recording reaches every process the flow has.
      expect([...kinds].sort()).toEqual(expect.arrayContaining(['agent', 'api', 'changes', 'provisioner']));

      const kills = killPoints(recording.steps);
      const fails = failPoints(recording.steps);
      const seed = Number(process.env.DROVER_CRASH_SEED ?? Date.now() % 2 ** 31);
      const points = ONLY
        ? [...kills, ...fails].filter((p) => ONLY.split(',').includes(pointName(p)))
        : SOAK
          ? shuffled([...kills, ...fails], seed)
          : [...samplePoints(kills, SAMPLE), ...samplePoints(fails, Math.ceil(SAMPLE / 4))];
      if (SOAK) console.info(`crash matrix: ${points.length} points in the order of seed ${seed} (DROVER_CRASH_SEED replays it)`);
      expect(points.length).toBeGreaterThan(0);
      const failures: string[] = [];
      let converged = 0;
      let reached = 0;
      let restarts = 0;
      let next = 0;
      let done = 0;
      const started = Date.now();
      const pastBound = () => SOAK && Date.now() - started > SOAK_CRASH_MS;
      const run: FaultPoint[] = [];
      const lane = async () => {
        while (next < points.length && !pastBound()) {
          const point = points[next++]!;
          run.push(point);
          await runPoint(point);
        }
      };
      const runPoint = async (point: FaultPoint) => {
        const seam = new FaultSeam();
        seam.arm(point);
        const world = await runWith(seam);
        if (seam.fired.length > 0) reached++;
        restarts += world.restarts + world.tap.restarts;
        if (world.problems.length === 0) converged++;
        else {
          failures.push(`${pointName(point)}:\n  ${world.problems.join('\n  ')}`);
          console.warn(`crash matrix: did not converge after ${failures.at(-1)}`);
        }
        if (++done % 25 === 0) {
          const seconds = Math.round((Date.now() - started) / 1000);
          console.info(`crash matrix: ${done} of ${points.length} points run, ${converged} converged, ${seconds} s`);
        }
      };
      // Runs are independent (each its own table, controller id and seam), so they share the time.
      await Promise.all(Array.from({ length: LANES }, lane));
      const killed = run.filter((p) => p.action === 'kill').length;
      console.info(
        `crash matrix: ${run.length} points${run.length < points.length ? ` of ${points.length} (the time bound)` : ''}, ${converged} converged ` +
          `(${killed} kills, ${run.length - killed} transient failures; ${recording.steps.length} steps recorded ` +
          `in ${kinds.size} process kinds; ${reached} points reached; ${restarts} restarts; ` +
          `${Math.round((Date.now() - started) / 1000)} s in ${LANES} lanes)`,
      );
      expect(failures).toEqual([]);
      expect(converged).toBe(run.length);
      // A kill that never happens proves nothing: nearly every point must be met again.
      expect(reached).toBeGreaterThanOrEqual(Math.floor(run.length * 0.9));
    },
    // Generous: a slow host must not fail a converging matrix; the test never asserts a duration.
    SOAK ? soakTimeout(SOAK_CRASH_MS, 30 * 60_000) : Math.max(10 * 60_000, SAMPLE * 90_000),
  );
});
