// The local provider's agent: the esbuild bundle built into the controller's data dir, rebuilt
// only when a file it was built from changed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentDirOf, buildLocalAgent } from '#shared/provider/local/agent-build.js';

let dir: string;
let entry: string;
let greeting: string;

// Sources written just before a build are not trusted to be what esbuild read (agent-build.ts):
// these are dated in the past, as sources at rest are.
const age = (path: string) => utimesSync(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'drover-agent-build-test-'));
  mkdirSync(join(dir, 'agent', 'hook-tools'), { recursive: true });
  greeting = join(dir, 'agent', 'greeting.ts');
  writeFileSync(greeting, 'export const greeting = (who: string): string => `hello ${who}`;\n');
  entry = join(dir, 'agent', 'main.ts');
  writeFileSync(entry, "import { greeting } from './greeting.js';\nconsole.log(greeting('machine'));\n");
  writeFileSync(join(dir, 'agent', 'hook-tools', 'hook-tool.bash'), '#!/bin/bash\necho tool\n');
  for (const path of [greeting, entry, join(dir, 'agent', 'hook-tools', 'hook-tool.bash')]) age(path);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (command: string[]) => spawnSync(command[0]!, command.slice(1), { encoding: 'utf8', env: {} });

describe("the local provider's agent bundle", () => {
  it('is the real agent, runnable with node from the data dir: without its configuration it says so and exits 2', async () => {
    const dataDir = join(dir, 'real');
    const command = await buildLocalAgent(dataDir);
    expect(command).toEqual([process.execPath, join(agentDirOf(dataDir), 'machine-agent.js')]);
    const result = run(command);
    expect(result.stderr).toMatch(/^ERROR /);
    expect(result.status).toBe(2);
    expect(statSync(join(agentDirOf(dataDir), 'hook-tools', 'hook-tool.bash')).mode & 0o777).toBe(0o755);
  });

  it('is built again only when one of its sources changed', async () => {
    const dataDir = join(dir, 'data');
    const script = join(agentDirOf(dataDir), 'machine-agent.js');
    const command = await buildLocalAgent(dataDir, entry);
    expect(run(command).stdout).toBe('hello machine\n');
    const first = statSync(script).ino;

    await buildLocalAgent(dataDir, entry);
    expect(statSync(script).ino).toBe(first); // every file is written by rename, so a rewrite is a new inode

    writeFileSync(greeting, 'export const greeting = (who: string): string => `good day ${who}`;\n');
    age(greeting);
    await buildLocalAgent(dataDir, entry);
    expect(statSync(script).ino).not.toBe(first);
    expect(run(command).stdout).toBe('good day machine\n');
    expect(readFileSync(join(agentDirOf(dataDir), 'hook-tools', 'hook-tool.bash'), 'utf8')).toContain('tool');
  });
});
