// The environment a dispatch charm's hooks see, variable by variable, as Juju 3.6's HookVars sets
// it (docs/juju-compat.md "Hook environment"): test/charms/ops-dispatch records `env` for every
// hook, and test/charms/info-agent, a juju-info subordinate like nrpe or telegraf, does the same
// on its principal's machine.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { recordInstance } from '#shared/state/operations/provisioning.js';
import { getApplication, getModel } from '#shared/state/engine/reads.js';
import { startAgentHarness, unitOf, type AgentHarness } from '../../support/agents.js';
import { waitFor } from '../../support/wait-for.js';

let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness();
});
afterAll(async () => {
  await h?.stop();
});

function recorded(machine: string, unit: string, hook: string): Record<string, string> | undefined {
  let text: string;
  try {
    text = readFileSync(join(h.unitDir(machine, unit), `env-${hook}`), 'utf8');
  } catch {
    return undefined;
  }
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

const envOf = (machine: string, unit: string, hook: string) =>
  waitFor(
    `${unit} ${hook} environment`,
    () => recorded(machine, unit, hook),
    (e) => e !== undefined,
  ) as Promise<Record<string, string>>;

describe('the hook environment of a dispatch charm', () => {
  it("has every variable of Juju 3.6's HookVars, with Juju's value shapes", async () => {
    const deployed = await h.deployCharm('ops-dispatch', { name: 'web' });
    // A charm declaring only manifest.yaml bases deploys on the series of its base.
    expect((await getApplication(h.store, 'web'))?.series).toBe('jammy');
    const [machine, unit] = [deployed.machines[0]!, deployed.units[0]!];
    await h.startAgent(machine);
    const env = await envOf(machine, unit, 'start');
    const charmDir = join(h.unitDir(machine, unit), 'charm');
    const model = await getModel(h.store);
    expect(model?.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(env).toMatchObject({
      JUJU_DISPATCH_PATH: 'hooks/start',
      JUJU_HOOK_NAME: 'start',
      JUJU_VERSION: '3.6.12',
      CHARM_DIR: charmDir,
      JUJU_CHARM_DIR: charmDir,
      JUJU_UNIT_NAME: unit,
      JUJU_MODEL_NAME: 'default',
      JUJU_MODEL_UUID: model!.uuid,
      JUJU_MACHINE_ID: machine,
      JUJU_PRINCIPAL_UNIT: '',
      // No provider has reported a zone for this machine yet: exported empty, as Juju does.
      JUJU_AVAILABILITY_ZONE: '',
      JUJU_SLA: 'unsupported',
      JUJU_AGENT_SOCKET_NETWORK: 'tcp',
      CLOUD_API_VERSION: '',
      JUJU_CHARM_HTTP_PROXY: '',
      JUJU_CHARM_HTTPS_PROXY: '',
      JUJU_CHARM_FTP_PROXY: '',
      JUJU_CHARM_NO_PROXY: '',
      APT_LISTCHANGES_FRONTEND: 'none',
      DEBIAN_FRONTEND: 'noninteractive',
      LANG: 'C.UTF-8',
      TERM: 'tmux-256color',
    });
    expect(env.JUJU_CONTEXT_ID).toMatch(new RegExp(`^${unit}-start-\\d+$`));
    expect(env.JUJU_AGENT_SOCKET_ADDRESS).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(env.JUJU_API_ADDRESSES).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(env.PATH?.startsWith(`${join(h.machineDir(machine), 'tools')}:`)).toBe(true);
    // Not a relation hook: no relation variables; and never the agent's credential: of drover's own
    // variables only the hook's secret for its tools (agent/hook-tools/tool-server.ts), 32 random bytes.
    expect(Object.keys(env).filter((k) => k.startsWith('JUJU_RELATION') || k.startsWith('JUJU_REMOTE'))).toEqual([]);
    expect(Object.keys(env).filter((k) => k.startsWith('DROVER_'))).toEqual(['DROVER_HOOK_SECRET']);
    expect(Buffer.from(env.DROVER_HOOK_SECRET!, 'base64url')).toHaveLength(32);
    // Every hook went through dispatch (leader-elected comes in between, with leadership).
    const dispatched = readFileSync(join(h.unitDir(machine, unit), 'dispatch-log'), 'utf8').split('\n');
    expect(dispatched.filter((p) => ['hooks/install', 'hooks/config-changed', 'hooks/start'].includes(p))).toEqual([
      'hooks/install',
      'hooks/config-changed',
      'hooks/start',
    ]);

    // As the EC2 provider records it: the zone the instance landed in, seen by later hooks.
    await recordInstance(h.store, machine, { instanceId: 'i-0abc', attempt: 0, hardware: 'arch=amd64 availability-zone=us-east-1b' });
    // A juju-info subordinate (requires `juju-info`, as nrpe does) joins it on its machine.
    await h.deployCharm('info-agent');
    const relation = await addRelation(h.store, ['info-agent', 'web']);
    const principal = await waitFor(
      'subordinate',
      () => unitOf(h, unit),
      (u) => (u?.subordinates.length ?? 0) > 0,
    );
    const sub = principal!.subordinates[0]!;
    const joined = await envOf(machine, sub, 'juju-info-relation-joined');
    expect(joined).toMatchObject({
      JUJU_DISPATCH_PATH: 'hooks/juju-info-relation-joined',
      JUJU_HOOK_NAME: 'juju-info-relation-joined',
      JUJU_UNIT_NAME: sub,
      JUJU_PRINCIPAL_UNIT: unit,
      JUJU_MACHINE_ID: machine,
      JUJU_AVAILABILITY_ZONE: 'us-east-1b',
      JUJU_RELATION: 'juju-info',
      JUJU_RELATION_ID: `juju-info:${relation.id}`,
      JUJU_REMOTE_UNIT: unit,
      JUJU_REMOTE_APP: 'web',
    });
    // The principal's side runs its implicit juju-info endpoint's hooks (dispatch gets them all).
    const other = await envOf(machine, unit, 'juju-info-relation-joined');
    expect(other).toMatchObject({ JUJU_RELATION: 'juju-info', JUJU_REMOTE_UNIT: sub, JUJU_REMOTE_APP: 'info-agent' });
  });
});
