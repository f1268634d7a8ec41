// The local controller end to end (docs/architecture.md): the real handlers on DynamoDB Local's stream, the
// API over HTTP, the local provider starting agent processes (a stand-in agent here; the agents'
// own suite runs the real one).
import { afterEach, describe, expect, it } from 'vitest';
import { startController, type RunningController } from '../../embedded/controller.js';
import { fakeAgentCommand, liveAgentPids, tempDataDir } from '../support/local-agents.js';
import { waitFor } from '../support/wait-for.js';

let controller: RunningController | undefined;
let dataDir: string;
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
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const MYSQL = 'name: mysql\nseries: [jammy]\nprovides:\n  server: mysql\n';

describe('local controller', () => {
  it('deploys through its API, and the provisioner starts a machine agent per machine', async () => {
    dataDir = tempDataDir();
    controller = await startController({ dataDir, agentCommand: fakeAgentCommand(), timers: { sweepMs: 500 } });
    const deployed = await call(controller, 'POST', 'deploy', { charm: { metadata: MYSQL }, numUnits: 2 });
    expect(deployed.status).toBe(200);
    const status = await waitFor(
      'both machines provisioned',
      () => call(controller!, 'GET', 'status'),
      (s) => Object.values(s.body.machines as Record<string, { 'instance-id': string }>).every((m) => m['instance-id'] !== 'pending'),
      30_000,
      200,
    );
    expect(Object.keys(status.body.machines)).toEqual(['0', '1']);
    expect(liveAgentPids(dataDir)).toHaveLength(2);
  });

  // Two controller starts, each starting DynamoDB Local: 15 s apiece on a loaded host.
  it('a clean stop leaves no process behind, and a restart resumes the machines', { timeout: 90_000 }, async () => {
    dataDir = tempDataDir();
    controller = await startController({ dataDir, agentCommand: fakeAgentCommand() });
    await call(controller, 'POST', 'add-machine', {});
    await waitFor(
      'an agent',
      () => Promise.resolve(liveAgentPids(dataDir)),
      (p) => p.length === 1,
      30_000,
      200,
    );
    await controller.stop();
    controller = undefined;
    expect(liveAgentPids(dataDir)).toEqual([]);

    controller = await startController({ dataDir, agentCommand: fakeAgentCommand() });
    expect(liveAgentPids(dataDir)).toHaveLength(1);
    const status = await call(controller, 'GET', 'status');
    expect(status.body.machines['0']['instance-id']).toMatch(/^local-/);
  });
});
