// Dispatch routing, as Juju 3's runner does it: a charm's root `dispatch` gets every hook and
// action with JUJU_DISPATCH_PATH; without one, the executable at that path runs itself.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runHookProcess } from '../../../agent/uniter/hook-process.js';

function charm(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'drover-dispatch-'));
  for (const [path, body] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), body);
    chmodSync(join(dir, path), 0o755);
  }
  return dir;
}

async function run(charmDir: string, dispatchPath: string) {
  const lines: string[] = [];
  const result = await runHookProcess({
    charmDir,
    dispatchPath,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    onLine: (_s, line) => lines.push(line),
  });
  return { result, lines };
}

describe('running a hook', () => {
  it('sends every hook and action through a root dispatch, with JUJU_DISPATCH_PATH', async () => {
    const dir = charm({ dispatch: '#!/bin/sh\necho "dispatched $JUJU_DISPATCH_PATH"\n', 'hooks/install': '#!/bin/sh\necho direct\n' });
    const hook = await run(dir, 'hooks/install');
    expect(hook.lines).toEqual(['dispatched hooks/install']);
    expect(hook.result).toMatchObject({ kind: 'exited', code: 0, via: 'hook dispatching script: dispatch' });
    expect((await run(dir, 'actions/backup')).lines).toEqual(['dispatched actions/backup']);
  });

  it('runs hooks/<name> itself when the charm has no dispatch, and skips a missing one', async () => {
    const dir = charm({ 'hooks/install': '#!/bin/sh\necho "direct $JUJU_DISPATCH_PATH"\n' });
    const hook = await run(dir, 'hooks/install');
    expect(hook.lines).toEqual(['direct hooks/install']);
    expect(hook.result).toMatchObject({ via: 'explicit, bespoke hook script' });
    expect((await run(dir, 'hooks/start')).result).toEqual({ kind: 'missing', why: 'missing' });
  });

  it('does not treat a dispatch without its executable bit as one', async () => {
    const dir = charm({ 'hooks/install': '#!/bin/sh\necho direct\n' });
    writeFileSync(join(dir, 'dispatch'), '#!/bin/sh\necho dispatched\n');
    chmodSync(join(dir, 'dispatch'), 0o644);
    expect((await run(dir, 'hooks/install')).lines).toEqual(['direct']);
  });
});
