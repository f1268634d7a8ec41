// docs/reliability.md, "Defects found by a hostile probe, and their regression tests" (a hook
// reaching past its own context), with real agents: a unit's tool server answers only the hook
// running now, by its secret. A process a hook left behind (it knows that hook's context id and
// secret) is refused once the hook has ended (nothing listens between hooks), and refused by
// another unit's server even with that unit's running context id, which any process of the same
// user can read in /proc.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentHarness, type AgentHarness } from '../../support/agents.js';
import { waitFor } from '../../support/wait-for.js';

let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness();
});
afterAll(async () => {
  await h?.stop();
});

function envFile(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split(/[\n\0]/)) {
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

/** A hook tool run with the given hook variables, as a process a hook left behind would. */
function tool(machine: string, name: string, env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(join(h.machineDir(machine), 'tools', name), [], { env: { PATH: process.env.PATH ?? '', ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

describe("a hook's tools", () => {
  it("reach only the hook running now: not after it ended, not another unit's hook", async () => {
    const a = await h.deployCharm('ops-dispatch', { name: 'confined-a' });
    const b = await h.deployCharm('database', { name: 'confined-b' });
    const [machineA, unitA] = [a.machines[0]!, a.units[0]!];
    const [machineB, unitB] = [b.machines[0]!, b.units[0]!];
    const gate = join(h.gatesDir(machineB), 'hang-install');
    writeFileSync(gate, '');
    await h.startAgent(machineA);
    await h.startAgent(machineB);

    // Unit A's start hook has ended; what it knew is what a process it left behind knows.
    const envPath = join(h.unitDir(machineA, unitA), 'env-start');
    await waitFor('confined-a to start', () => existsSync(envPath), Boolean);
    const leftover = envFile(envPath);
    const vars = (env: Record<string, string>) => ({
      JUJU_CONTEXT_ID: env.JUJU_CONTEXT_ID!,
      DROVER_HOOK_SECRET: env.DROVER_HOOK_SECRET!,
      JUJU_AGENT_SOCKET_NETWORK: env.JUJU_AGENT_SOCKET_NETWORK!,
      JUJU_AGENT_SOCKET_ADDRESS: env.JUJU_AGENT_SOCKET_ADDRESS!,
    });
    expect(leftover.DROVER_HOOK_SECRET).toMatch(/^[\w-]{43}$/);
    await waitFor(
      'the start hook to end',
      () => tool(machineA, 'config-get', vars(leftover)),
      (r) => r.code !== 0,
      10_000,
    );
    // Between hooks nothing listens there; while a later hook runs (its server may even have
    // the same port, or another unit's may), the ended hook's context is unknown to it.
    const refused = await tool(machineA, 'config-get', vars(leftover));
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect([
      `error: cannot reach the unit agent at ${leftover.JUJU_AGENT_SOCKET_ADDRESS}\n`,
      `error: bad request: unknown context id "${leftover.JUJU_CONTEXT_ID}"\n`,
    ]).toContain(refused.stderr);

    // Unit B's install hook runs now: its context id is in its /proc environ for anyone to read.
    await waitFor(
      'confined-b install to hang',
      () => existsSync(join(h.gatesDir(machineB), `hanging-${unitB.replace('/', '-')}-install`)),
      Boolean,
    );
    const [hook] = readdirSync(join(h.machineDir(machineB), 'running-hooks')).map(Number);
    const running = envFile(`/proc/${hook}/environ`);
    expect(running.JUJU_UNIT_NAME).toBe(unitB);
    // B's tool server listens while B's hook runs, on a port any local process can connect to.
    const serverB = running.JUJU_AGENT_SOCKET_ADDRESS!;
    expect(serverB).toMatch(/^127\.0\.0\.1:\d+$/);
    // With A's secret, B's server and B's live context id are no use.
    expect(
      await tool(machineB, 'config-get', {
        ...vars(leftover),
        JUJU_AGENT_SOCKET_ADDRESS: serverB,
        JUJU_CONTEXT_ID: running.JUJU_CONTEXT_ID!,
      }),
    ).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: bad request: wrong secret for context id "${running.JUJU_CONTEXT_ID}"\n`,
    });
    // B's own hook, with its secret, is answered (the limit docs/agents.md states: the same user
    // can read that secret there too).
    expect((await tool(machineB, 'config-get', vars(running))).code).toBe(0);
    rmSync(gate);
  }, 90_000);
});
