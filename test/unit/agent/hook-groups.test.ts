// Hooks run in process groups of their own (agent/uniter/hook-groups.ts): a hook that signals its
// own group does not reach the agent, and a killed agent's leftover groups are killed by the next.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftoverHookGroups, recordHookGroupsIn } from '../../../agent/uniter/hook-groups.js';
import { runHookProcess } from '../../../agent/uniter/hook-process.js';
import { isProcessAlive, processStartTime } from '#shared/provider/local/process-identity.js';
import { waitFor } from '../../support/wait-for.js';

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

const gone = (pid: number) =>
  waitFor(
    `process ${pid} to end`,
    () => isProcessAlive({ pid }),
    (alive) => !alive,
    5_000,
    20,
  ).then((alive) => !alive);

/** A process group like a hook's: a shell leader with a background child, both sleeping. */
function leftoverGroup(): { leader: number; child: () => number } {
  const dir = mkdtempSync(join(tmpdir(), 'drover-group-'));
  const proc = spawn('/bin/sh', ['-c', `sleep 1000 & echo $! > ${join(dir, 'child')}; wait`], { detached: true, stdio: 'ignore' });
  started.push(proc.pid!);
  return { leader: proc.pid!, child: () => Number(readFileSync(join(dir, 'child'), 'utf8')) };
}

async function childOf(group: { child: () => number }): Promise<number> {
  for (;;) {
    try {
      const pid = group.child();
      if (pid > 0) return pid;
    } catch {
      // not written yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('hook process groups', () => {
  it('a hook signalling its own group (kill 0) does not reach the agent', async () => {
    const charmDir = mkdtempSync(join(tmpdir(), 'drover-kill0-'));
    mkdirSync(join(charmDir, 'hooks'));
    writeFileSync(join(charmDir, 'hooks', 'install'), '#!/bin/sh\nkill -WINCH 0\necho "group $(ps -o pgid= $$)"\n');
    chmodSync(join(charmDir, 'hooks', 'install'), 0o755);
    let signalled = 0;
    const listener = () => signalled++;
    process.on('SIGWINCH', listener);
    try {
      const lines: string[] = [];
      const result = await runHookProcess({
        charmDir,
        dispatchPath: 'hooks/install',
        env: { PATH: process.env.PATH ?? '' },
        onLine: (_s, l) => lines.push(l),
      });
      expect(result).toMatchObject({ kind: 'exited', code: 0 });
      const ownGroup = Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[2]);
      expect(Number(lines[0]!.replace('group', '').trim())).not.toBe(ownGroup);
      expect(signalled).toBe(0);
    } finally {
      process.off('SIGWINCH', listener);
    }
  });

  it('records a running hook and forgets it when it exits', async () => {
    const records = mkdtempSync(join(tmpdir(), 'drover-records-'));
    recordHookGroupsIn(records);
    const charmDir = mkdtempSync(join(tmpdir(), 'drover-record-'));
    mkdirSync(join(charmDir, 'hooks'));
    // The record is written as soon as spawn returns, which may be after the hook began: it waits.
    writeFileSync(
      join(charmDir, 'hooks', 'install'),
      `#!/bin/sh\nfor i in $(seq 100); do [ -n "$(ls ${records})" ] && break; sleep 0.05; done\nls ${records}\n`,
    );
    chmodSync(join(charmDir, 'hooks', 'install'), 0o755);
    const lines: string[] = [];
    await runHookProcess({
      charmDir,
      dispatchPath: 'hooks/install',
      env: { PATH: process.env.PATH ?? '' },
      onLine: (_s, l) => lines.push(l),
    });
    expect(lines).toHaveLength(1); // its own record, while it ran
    expect(readdirSync(records)).toEqual([]);
  });

  it('kills the groups a dead agent recorded, members included, and forgets them', async () => {
    const records = mkdtempSync(join(tmpdir(), 'drover-left-'));
    const group = leftoverGroup();
    const child = await childOf(group);
    writeFileSync(join(records, String(group.leader)), JSON.stringify({ pid: group.leader, startTime: processStartTime(group.leader) }));
    expect(killLeftoverHookGroups(records)).toBe(1);
    expect(await gone(group.leader)).toBe(true);
    expect(await gone(child)).toBe(true);
    expect(readdirSync(records)).toEqual([]);
  });

  it('leaves alone a group whose leader pid now names another process (another start time)', async () => {
    const records = mkdtempSync(join(tmpdir(), 'drover-reused-'));
    const group = leftoverGroup();
    writeFileSync(join(records, String(group.leader)), JSON.stringify({ pid: group.leader, startTime: '1' }));
    writeFileSync(join(records, 'half-written'), '{"pid":');
    expect(killLeftoverHookGroups(records)).toBe(0);
    expect(isProcessAlive({ pid: group.leader })).toBe(true);
    expect(existsSync(join(records, String(group.leader)))).toBe(false);
    expect(readdirSync(records)).toEqual([]);
  });
});
