// Carrying out a deployment plan (agent/machine/converge-deployments.ts): one unit that cannot be
// deployed shows an error on that unit and never holds up the others on its machine.
import { describe, expect, it } from 'vitest';
import { AgentApiError, type AgentApi } from '../../../agent/api-client.js';
import { applyDeployments } from '../../../agent/machine/converge-deployments.js';
import type { Deployer } from '../../../agent/machine/deployer.js';
import type { AgentLog } from '../../../agent/log/agent-log.js';
import type { AgentView } from '../../../agent/view.js';
import type { Unit } from '#shared/domain/entities.js';
import { unit } from '../plans/relation-fixtures.js';

function harness(failures: Record<string, Error>) {
  const deployed: string[] = [];
  const calls: { op: string; body: unknown }[] = [];
  const deployer = {
    deploy: async (u: Unit) => {
      const failure = failures[u.name];
      if (failure) throw failure;
      deployed.push(u.name);
    },
  } as unknown as Deployer;
  const api = {
    call: async (op: string, body: unknown) => {
      calls.push({ op, body });
      return {};
    },
  } as unknown as AgentApi;
  const log = { log: () => undefined, flush: async () => undefined } as unknown as AgentLog;
  const view = { applications: [] } as unknown as AgentView;
  const deploy = (...names: string[]) =>
    applyDeployments(
      names.map((n) => ({ kind: 'deploy' as const, unit: unit(n) })),
      view,
      { api, deployer, log },
    );
  return { deployed, calls, deploy };
}

describe('applying a deployment plan', () => {
  it('deploys the other units when one charm archive is refused, and shows the error on that unit', async () => {
    const h = harness({ 'bad/0': new Error('charm archive: entry "up/X" lies beneath a symlink') });
    await h.deploy('bad/0', 'good/0', 'good/1');
    expect(h.deployed).toEqual(['good/0', 'good/1']);
    expect(h.calls).toEqual([
      {
        op: 'set-unit-status',
        body: {
          unit: 'bad/0',
          agent: { current: 'error', message: 'cannot deploy unit "bad/0": charm archive: entry "up/X" lies beneath a symlink' },
        },
      },
    ]);
  });

  it('deploys the others, then fails the convergence, when the API could not be reached (a retry may cure it)', async () => {
    const h = harness({ 'web/0': new AgentApiError(503, 'unavailable', 'try later') });
    await expect(h.deploy('web/0', 'web/1')).rejects.toThrow('try later');
    expect(h.deployed).toEqual(['web/1']);
    expect(h.calls).toEqual([]);
  });
});
