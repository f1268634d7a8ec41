// The local controller supervises its database (docs/reliability.md, defect #6): DynamoDB Local killed under a
// running controller is noticed, said, and restarted on the same port and data; meanwhile the
// API answers 503 saying why, not 500; afterwards the stream pollers carry on from their
// checkpoints, so a deploy works and nothing handled before is lost or done twice.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startController, type RunningController } from '../../embedded/controller.js';
import { DATABASE_RESTARTING_MESSAGE } from '../../embedded/database-guard.js';
import { isProcessAlive } from '#shared/provider/local/process-identity.js';
import { waitFor } from '../support/wait-for.js';
import { fakeAgentCommand, liveAgentPids, tempDataDir } from '../support/local-agents.js';
import { silentLogger } from '../support/silent-logger.js';

let controller: RunningController | undefined;
afterEach(async () => {
  await controller?.stop();
  controller = undefined;
});

async function call(c: RunningController, method: string, op: string, body?: unknown) {
  const res = await fetch(`${c.apiUrl}/v1/${op}`, {
    method,
    headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, any> };
}

/** The provisioner's checkpoint per shard: the last sequence number it handled. */
function checkpoints(dataDir: string): Record<string, string> {
  const file = JSON.parse(readFileSync(join(dataDir, 'checkpoints-provisioner.json'), 'utf8')) as {
    shards: Record<string, { sequenceNumber?: string }>;
  };
  return Object.fromEntries(Object.entries(file.shards).map(([id, c]) => [id, c.sequenceNumber ?? '0']));
}

const charm = (name: string) => ({ metadata: `name: ${name}\nseries: [jammy]\n` });
const instanceOf = (status: { body: Record<string, any> }, machine: string): string | undefined =>
  status.body.machines?.[machine]?.['instance-id'];

describe('local controller supervision', () => {
  it(
    'DynamoDB Local killed: 503 while it restarts, then it is back by itself, deploys work, nothing is lost',
    { timeout: 180_000 },
    async () => {
      const dataDir = tempDataDir();
      controller = await startController({ dataDir, agentCommand: fakeAgentCommand(), logger: silentLogger });
      const c = controller;
      expect((await call(c, 'POST', 'deploy', { charm: charm('before') })).status).toBe(200);
      const before = await waitFor(
        'machine 0 provisioned',
        () => call(c, 'GET', 'status'),
        (s) => (instanceOf(s, '0') ?? 'pending') !== 'pending',
        60_000,
      );
      const agents = liveAgentPids(dataDir);
      expect(agents).toHaveLength(1);

      const checkpointsBefore = checkpoints(dataDir);
      expect(Object.keys(checkpointsBefore)).toHaveLength(1);
      const killed = c.databasePid()!;
      const killedAt = Date.now();
      process.kill(killed, 'SIGKILL');
      const down = await waitFor(
        'a 503 from the API',
        () => call(c, 'GET', 'status'),
        (s) => s.status !== 200,
        30_000,
      );
      expect(down.status).toBe(503);
      expect(down.body.error.message).toBe(DATABASE_RESTARTING_MESSAGE);
      expect(down.retryAfter).toBe('5');

      const back = await waitFor(
        'the API to answer again',
        () => call(c, 'GET', 'status'),
        (s) => s.status === 200,
        90_000,
      );
      console.log(`DynamoDB Local killed -> API answering again: ${((Date.now() - killedAt) / 1000).toFixed(1)} s`);
      expect(isProcessAlive({ pid: killed })).toBe(false);
      expect(c.databasePid()).toBeDefined();
      expect(c.databasePid()).not.toBe(killed);
      // Nothing handled before the kill is lost: the application and its machine's instance remain.
      expect(Object.keys(back.body.applications)).toEqual(['before']);
      expect(instanceOf(back, '0')).toBe(instanceOf(before, '0'));

      // The provisioner's poller runs again: a deploy after the restart gets its machine.
      expect((await call(c, 'POST', 'deploy', { charm: charm('after') })).status).toBe(200);
      await waitFor(
        'machine 1 provisioned after the restart',
        () => call(c, 'GET', 'status'),
        (s) => (instanceOf(s, '1') ?? 'pending') !== 'pending',
        60_000,
      );
      // The stream survived the restart: the same shard, read on from where the pollers were,
      // not a new stream read again from its start.
      const [shard, handledBefore] = Object.entries(checkpointsBefore)[0]!;
      const after = checkpoints(dataDir);
      expect(Object.keys(after)).toEqual([shard]);
      expect(BigInt(after[shard]!)).toBeGreaterThan(BigInt(handledBefore));
      // ...and machine 0's agent was not started a second time by a replay.
      const now = liveAgentPids(dataDir);
      expect(now).toHaveLength(2);
      expect(now).toContain(agents[0]);

      // No batch gave up while the database was down: the pollers paused instead.
      expect(existsSync(join(dataDir, 'stream-failures.jsonl'))).toBe(false);

      // debug-log says what happened.
      const log = readFileSync(join(dataDir, 'logs', 'debug-log.jsonl'), 'utf8');
      expect(log).toContain(`DynamoDB Local (pid ${killed}) stopped unexpectedly (killed by SIGKILL`);
      expect(log).toMatch(/DynamoDB Local is back \(pid \d+\) after [\d.]+ s/);
      expect(log).toContain('stream pollers resumed from their checkpoints');
    },
  );
});
