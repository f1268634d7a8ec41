// The local controller with real agents (docs/agents.md): a charm pair deployed and related on the local controller (npm start's
// startController: DynamoDB Local on disk, fauxqs, stream pollers, provisioner, local provider
// running agent/main.ts) exchange data through their hooks.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startController } from '../../embedded/controller.js';
import { packCharmDir } from '#shared/charmstore/charm-archive.js';
import { listMachineDirs, readRecord } from '#shared/provider/local/machine-dir.js';
import { isProcessAlive } from '#shared/provider/local/process-identity.js';
import { CHARMS } from '../support/agents.js';
import { waitFor } from '../support/wait-for.js';
import { silentLogger } from '../support/silent-logger.js';

async function charm(name: string) {
  const dir = join(CHARMS, name);
  const config = join(dir, 'config.yaml');
  return {
    metadata: readFileSync(join(dir, 'metadata.yaml'), 'utf8'),
    ...(existsSync(config) ? { config: readFileSync(config, 'utf8') } : {}),
    archive: (await packCharmDir(dir)).toString('base64'),
  };
}

/** A user API request that must succeed (the CLI's own calls, without the CLI). */
async function userCall(controller: { apiUrl: string; token: string }, op: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${controller.apiUrl}/v1/${op}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${controller.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json;
}

describe('agents on the local controller', () => {
  it('a database and a client, deployed and related, exchange data through their hooks', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'drover-e2e-agents-'));
    const controller = await startController({ dataDir, logger: silentLogger, timers: { reconcileMs: 2_000 } });
    const call = (op: string, body: unknown) => userCall(controller, op, body);
    const hookLog = (machine: string, unit: string) => {
      try {
        return readFileSync(join(dataDir, 'machines', machine, 'units', unit.replace('/', '-'), 'hook-log'), 'utf8');
      } catch {
        return '';
      }
    };
    try {
      const db = (await call('deploy', { charm: await charm('database') })) as { machines: string[] };
      const client = (await call('deploy', { charm: await charm('client') })) as { machines: string[] };
      await call('relate', { endpoints: ['client', 'database'] });
      const seen = await waitFor(
        'the client to get its database',
        () => hookLog(client.machines[0]!, 'client/0'),
        (log) => log.includes('database=appdb host=127.0.0.1 password=pw-database-0'),
        90_000,
      );
      expect(seen).toMatch(/hook=install[^\n]*\nhook=config-changed[^\n]*\nhook=start/);
      await waitFor(
        'the database to get its client',
        () => hookLog(db.machines[0]!, 'database/0'),
        (log) => log.includes('client-name=client/0'),
      );
    } finally {
      await controller.stop();
      // A clean stop leaves no agent behind.
      const alive = listMachineDirs(dataDir)
        .map(readRecord)
        .filter((r) => r !== undefined && isProcessAlive(r));
      expect(alive).toEqual([]);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('after a controller restart its agents run again, from the bundle built anew, and carry on', { timeout: 180_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'drover-e2e-agents-'));
    let controller = await startController({ dataDir, logger: silentLogger });
    const call = (op: string, body: unknown) => userCall(controller, op, body);
    const hookLog = () => {
      try {
        return readFileSync(join(dataDir, 'machines', '0', 'units', 'database-0', 'hook-log'), 'utf8');
      } catch {
        return '';
      }
    };
    try {
      await call('deploy', { charm: await charm('database') });
      // Its start hook ended, not merely logged: a stop while a hook runs kills it, and the hook
      // then counts as failed after the restart (agent/machine/machine-agent.ts, stop), which
      // would hold back the config-changed below.
      const agentLog = () => {
        try {
          return readFileSync(join(dataDir, 'machines', '0', 'agent.log'), 'utf8')
            .split('\n')
            .slice(-40);
        } catch {
          return []; // no machine yet
        }
      };
      await waitFor('database/0 to start', agentLog, (log) => log.some((line) => line.includes('ran "start" hook')), 60_000);
      await controller.stop();
      controller = await startController({ dataDir, logger: silentLogger });
      const agent = readRecord(listMachineDirs(dataDir)[0]!);
      expect(agent && isProcessAlive(agent)).toBe(true);
      expect(readFileSync(join(dataDir, 'agent', 'machine-agent.js'), 'utf8')).toContain('machine agent');
      // The resumed agent hears of the change and its hook tools answer.
      await call('config', { application: 'database', set: { 'db-name': 'after-restart' } });
      // The agent's own log rides along, so that a timeout shows what the agent did meanwhile.
      await waitFor(
        'config-changed after the restart',
        () => ({ hooks: hookLog(), agent: agentLog() }),
        ({ hooks }) => hooks.includes('db-name=after-restart'),
        90_000,
      );
    } finally {
      await controller.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a machine agent killed with kill -9 is started again by the controller, and its unit carries on', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'drover-e2e-agents-'));
    const controller = await startController({ dataDir, logger: silentLogger });
    const call = (op: string, body: unknown) => userCall(controller, op, body);
    const hookLog = () => {
      try {
        return readFileSync(join(dataDir, 'machines', '0', 'units', 'database-0', 'hook-log'), 'utf8');
      } catch {
        return '';
      }
    };
    try {
      await call('deploy', { charm: await charm('database') });
      const [dir] = await waitFor(
        'machine 0 to be provisioned',
        () => listMachineDirs(dataDir),
        (dirs) => dirs.length > 0,
        60_000,
      );
      // Killed between hooks: one killed mid-hook would be reported failed, awaiting `resolved`.
      const agentLog = () => (existsSync(join(dir!, 'agent.log')) ? readFileSync(join(dir!, 'agent.log'), 'utf8') : '');
      await waitFor('database/0 to finish its start hook', agentLog, (log) => log.includes('ran "start" hook'), 60_000);
      const killed = readRecord(dir!)!;
      process.kill(killed.pid, 'SIGKILL');
      // The controller's agent check (every 3 s) starts it again: same instance, a new process.
      const revived = await waitFor(
        'the agent to be started again',
        () => readRecord(dir!),
        (r) => r !== undefined && r.pid !== killed.pid && isProcessAlive(r),
        30_000,
      );
      expect(revived?.instanceId).toBe(killed.instanceId);
      // It authenticates with the same credential and goes on with its unit.
      await call('config', { application: 'database', set: { 'db-name': 'after-kill' } });
      await waitFor('config-changed after the restart', hookLog, (log) => log.includes('db-name=after-kill'), 60_000);
      expect(agentLog()).not.toMatch(/refused this agent's credential/);
    } finally {
      await controller.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
