// Actions and exec with real agent processes and the action-box test charm: a task queued in
// DynamoDB reaches its unit through the hint path, runs between hooks as actions/<name>, and
// ends completed or failed with Juju's results, never putting the unit in a hook error state.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '#shared/domain/operations.js';
import { EXEC_ACTION } from '#shared/domain/operations.js';
import { enqueueOperation } from '#shared/state/operations/action-tasks.js';
import { getTask, readOperation } from '#shared/state/queries/action-tasks.js';
import { getSequence } from '#shared/state/engine/reads.js';
import { startAgentHarness, unitOf, type AgentHarness, type AgentProcess } from '../../support/agents.js';
import { waitFor } from '../../support/wait-for.js';

let h: AgentHarness;
let machine: string;
let unit: string;
let agent: AgentProcess;

beforeAll(async () => {
  h = await startAgentHarness();
  const deployed = await h.deployCharm('action-box', { name: 'box' });
  [machine, unit] = [deployed.machines[0]!, deployed.units[0]!];
  agent = await h.startAgent(machine);
  await waitFor(
    `${unit} idle`,
    () => unitOf(h, unit),
    (u) => u?.agentStatus.current === 'idle',
  );
});
afterAll(async () => {
  await h?.stop();
});

const finished = (id: string, timeoutMs?: number) =>
  waitFor(
    `task ${id} to finish`,
    () => getTask(h.store, id),
    (t) => !!t && ['completed', 'failed'].includes(t.status),
    timeoutMs,
  ) as Promise<Task>;

/** The agent goes back to idle (its status is written in the background), never to error. */
const idleNotError = () =>
  waitFor(
    `${unit} idle`,
    () => unitOf(h, unit),
    (u) => {
      if (u?.agentStatus.current === 'error') throw new Error(`${unit} went into error: ${u.agentStatus.message}`);
      return u?.agentStatus.current === 'idle';
    },
  );

async function run(action: string, parameters: Record<string, unknown> = {}) {
  const queued = await enqueueOperation(h.store, { action, units: [unit], parameters });
  return finished(queued.tasks[0]!.id);
}

describe('actions', () => {
  it('runs actions/<name> with its params, environment and tools; results, log and output are kept', async () => {
    const queued = await enqueueOperation(h.store, { action: 'greet', units: [unit], parameters: { times: 2 } });
    const task = await finished(queued.tasks[0]!.id);
    expect(task).toMatchObject({
      status: 'completed',
      unit,
      action: 'greet',
      parameters: { name: 'world', times: 2 },
      results: {
        greeting: 'hello world',
        times: '2',
        env: { unit, action: 'greet', uuid: task.id, dispatch: 'actions/greet', hook: 'unset', colour: 'blue' },
        'return-code': 0,
        stdout: 'said hello to world\n',
      },
    });
    expect(task.log.map((l) => l.message)).toEqual(['greeting world', 'done']);
    expect(task.started && task.completed).toBeTruthy();
    const operation = await readOperation(h.store, queued.operation);
    expect(operation).toMatchObject({ summary: `greet run on unit-box-0`, tasks: [task.id] });
    // Finished: no longer pending on the unit.
    expect((await unitOf(h, unit))?.pendingTasks).toEqual([]);
  });

  it('action-fail ends the task failed with its message; the unit stays out of error', async () => {
    const task = await run('refuse');
    expect(task).toMatchObject({ status: 'failed', message: 'no way', results: { partial: 'yes', 'return-code': 0 } });
    await idleNotError();
  });

  it('a non-zero exit ends the task failed with "exit status N" and the script\'s stderr', async () => {
    const task = await run('crash');
    expect(task).toMatchObject({ status: 'failed', message: 'exit status 3', results: { 'return-code': 3, stderr: 'oops\n' } });
    await idleNotError();
  });

  it('outside an action the tools fail with "not running an action"', () => {
    const text = readFileSync(join(h.unitDir(machine, unit), 'install-action-get.txt'), 'utf8');
    expect(text).toBe('ERROR not running an action\nrc=1\n');
  });

  it('refuses an undefined action and bad params, writing nothing', async () => {
    const before = await getSequence(h.store, 'task');
    await expect(enqueueOperation(h.store, { action: 'dance', units: [unit], parameters: {} })).rejects.toThrow(
      `action "dance" not defined on unit "${unit}"`,
    );
    await expect(enqueueOperation(h.store, { action: 'greet', units: [unit], parameters: { times: 0 } })).rejects.toThrow(
      'validation failed: times : must be >= 1',
    );
    await expect(enqueueOperation(h.store, { action: 'greet', units: [unit], parameters: { nmae: 'x' } })).rejects.toThrow(
      'validation failed: (root) : Additional property nmae is not allowed',
    );
    await expect(enqueueOperation(h.store, { action: 'greet', units: ['box/9'], parameters: {} })).rejects.toThrow(
      'unit "box/9" not found',
    );
    expect(await getSequence(h.store, 'task')).toBe(before);
  });
});

describe('exec', () => {
  it("runs the command in the unit's hook context and keeps its output and exit status", async () => {
    const ok = await run(EXEC_ACTION, { command: 'echo "$JUJU_UNIT_NAME"; config-get colour', timeout: 30 });
    expect(ok).toMatchObject({ status: 'completed', results: { 'return-code': 0, stdout: `${unit}\nblue\n` } });
    const bad = await run(EXEC_ACTION, { command: 'echo no >&2; exit 4', timeout: 30 });
    expect(bad).toMatchObject({ status: 'failed', message: 'exit status 4', results: { 'return-code': 4, stderr: 'no\n' } });
  });

  it('kills a command that outlives its timeout', async () => {
    const task = await run(EXEC_ACTION, { command: 'sleep 30', timeout: 0.5 });
    expect(task).toMatchObject({ status: 'failed', message: 'command timed out' });
  });
});

describe('an ops-shaped charm', () => {
  it("runs the action through dispatch with ops's own tool calls (action-get --format=json, action-log --, action-set, action-fail)", async () => {
    const deployed = await h.deployCharm('ops-shaped', { name: 'ops' });
    const [opsMachine, opsUnit] = [deployed.machines[0]!, deployed.units[0]!];
    await h.startAgent(opsMachine);
    await waitFor(
      `${opsUnit} idle`,
      () => unitOf(h, opsUnit),
      (u) => u?.agentStatus.current === 'idle',
    );
    const greet = async (parameters: Record<string, unknown>) =>
      finished((await enqueueOperation(h.store, { action: 'greet', units: [opsUnit], parameters })).tasks[0]!.id);
    const ok = await greet({ name: 'drover' });
    expect(ok).toMatchObject({
      status: 'completed',
      parameters: { name: 'drover', fail: false },
      results: { unit: opsUnit, greeting: 'hello from ops to drover', 'return-code': 0 },
    });
    expect(ok.log.map((l) => l.message)).toEqual(['greeting drover']);
    expect(await greet({ name: 'x', fail: true })).toMatchObject({ status: 'failed', message: 'asked to fail greeting x' });
  }, 60_000);
});

describe('faults', () => {
  it('a task running when the agent is killed ends failed after the restart, and never runs again', async () => {
    const queued = await enqueueOperation(h.store, { action: 'slow', units: [unit], parameters: {} });
    const id = queued.tasks[0]!.id;
    const marker = join(h.unitDir(machine, unit), 'slow-started');
    await waitFor(
      'the slow action to log',
      () => getTask(h.store, id),
      (t) => (t?.log.length ?? 0) > 0,
    );
    expect((await getTask(h.store, id))?.status).toBe('running');
    expect(existsSync(marker)).toBe(true);
    await agent.kill(); // the agent's process group: the action dies with it
    rmSync(marker);
    agent = await h.startAgent(machine);
    const task = await finished(id);
    expect(task).toMatchObject({ status: 'failed', message: 'action terminated: the unit agent stopped while it ran' });
    expect(task.log.map((l) => l.message)).toEqual(['started']);
    // The next task runs as usual; the interrupted one did not run again.
    expect((await run('refuse')).status).toBe('failed');
    expect(existsSync(marker)).toBe(false);
  });
});
