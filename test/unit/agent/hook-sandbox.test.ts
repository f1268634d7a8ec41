// Hooks in the local provider's bubblewrap sandbox (shared/provider/local/hook-sandbox.ts): what
// the sandbox hides and keeps, through the agent's one way of starting hooks (hook-groups.ts).
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sandboxHookGroups } from '../../../agent/uniter/hook-groups.js';
import { runHookProcess } from '../../../agent/uniter/hook-process.js';
import {
  HOOK_SANDBOX_ENV,
  hookSandboxEnv,
  hookSandboxFromEnv,
  localHookSandbox,
  probeHookSandbox,
} from '#shared/provider/local/hook-sandbox.js';

const dataDir = mkdtempSync(join(tmpdir(), 'drover-sandbox-'));
const machineDir = join(dataDir, 'machines', '0');
const charmDir = join(machineDir, 'units', 'snoop-0', 'charm');

/** Runs `script` as the charm's install hook; its output lines. */
async function hook(script: string): Promise<{ lines: string[]; code: number | null }> {
  writeFileSync(join(charmDir, 'hooks', 'install'), `#!/bin/bash\n${script}\n`);
  chmodSync(join(charmDir, 'hooks', 'install'), 0o755);
  const lines: string[] = [];
  const ran = await runHookProcess({
    charmDir,
    dispatchPath: 'hooks/install',
    env: { PATH: process.env.PATH ?? '' },
    onLine: (_, l) => lines.push(l),
  });
  return { lines, code: ran.kind === 'exited' ? ran.code : null };
}

describe('the hook sandbox', () => {
  beforeAll(() => {
    mkdirSync(join(charmDir, 'hooks'), { recursive: true });
    mkdirSync(join(dataDir, 'machines', '1'), { recursive: true });
    writeFileSync(join(dataDir, 'secrets.json'), '{"token":"admin"}');
    expect(probeHookSandbox(dataDir)).toEqual({ available: true });
    sandboxHookGroups({ kind: 'bwrap', hidden: [dataDir] }, machineDir);
  });

  it("hides the data directory but the hook's machine, and every process but the hook's", async () => {
    const ran = await hook(
      `cat ${dataDir}/secrets.json || echo no-secrets; ls ${dataDir}/machines; echo pwd=$PWD; ls /proc | grep -c '^[0-9]'; echo $$`,
    );
    expect(ran.code).toBe(0);
    expect(ran.lines.filter((l) => !l.startsWith('cat:'))).toEqual([
      'no-secrets',
      '0',
      `pwd=${charmDir}`,
      expect.stringMatching(/^[2-9]$/),
      '2',
    ]);
  });

  it('keeps the machine directory writable and the rest of the host read-only', async () => {
    const ran = await hook(
      `echo kept > ${machineDir}/note && cat ${machineDir}/note; touch /usr/drover-sandbox 2>/dev/null || echo read-only`,
    );
    expect(ran.lines).toEqual(['kept', 'read-only']);
  });

  it('drops every capability, so no mount can be undone', async () => {
    const ran = await hook(
      `grep CapEff /proc/self/status; umount -l ${dataDir} 2>/dev/null || echo refused; cat ${dataDir}/secrets.json 2>/dev/null || echo hidden`,
    );
    expect(ran.lines).toEqual(['CapEff:\t0000000000000000', 'refused', 'hidden']);
  });

  it("passes the hook's exit code on", async () => {
    expect((await hook('exit 3')).code).toBe(3);
  });
});

describe("the sandbox's settings", () => {
  it('travel to the agent in one variable and come back whole', () => {
    const sandbox = { kind: 'bwrap' as const, hidden: ['/srv/drover', '/home/me'] };
    expect(hookSandboxFromEnv(hookSandboxEnv(sandbox))).toEqual(sandbox);
    expect(hookSandboxFromEnv({})).toBeUndefined();
  });

  it('refuse what is not a sandbox, rather than running hooks unconfined', () => {
    for (const value of ['yes', '{"kind":"none","hidden":[]}', '{"kind":"bwrap","hidden":["relative"]}', '{"kind":"bwrap"}'])
      expect(() => hookSandboxFromEnv({ [HOOK_SANDBOX_ENV]: value })).toThrow(`${HOOK_SANDBOX_ENV} is not a sandbox: ${value}`);
  });

  it('say how to install bwrap where it is missing', () => {
    expect(probeHookSandbox(dataDir, '/nonexistent/bwrap')).toEqual({
      available: false,
      why: 'bwrap is not installed (Debian and Ubuntu: apt-get install bubblewrap)',
    });
  });

  it("hide the controller's data directory and the home that exist, where bwrap works", () => {
    const home = mkdtempSync(join(tmpdir(), 'drover-home-'));
    expect(localHookSandbox(dataDir, home, { available: true })).toEqual({
      env: hookSandboxEnv({ kind: 'bwrap', hidden: [dataDir, home] }),
    });
    expect(localHookSandbox(dataDir, '/', { available: true })).toEqual({ env: hookSandboxEnv({ kind: 'bwrap', hidden: [dataDir] }) });
    expect(localHookSandbox(dataDir, join(home, 'gone'), { available: true })).toEqual({
      env: hookSandboxEnv({ kind: 'bwrap', hidden: [dataDir] }),
    });
  });

  it('ask for no sandbox where bwrap cannot run, and say what that exposes', () => {
    expect(localHookSandbox('/srv/drover', '/home/me', { available: false, why: 'bwrap is not installed' })).toEqual({
      env: {},
      warning:
        "hooks are not sandboxed: bwrap is not installed; a charm's hook can read this controller's secrets in /srv/drover and act as its admin: deploy only charms you trust",
    });
  });
});
