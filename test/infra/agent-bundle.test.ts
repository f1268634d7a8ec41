// The machine agent bundle instances download (shared/provider/ec2/user-data.ts): a gzip
// tarball with machine-agent.js at its root, reproducible so that its SHA-256 — which instances
// verify — changes only when the agent does.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgentBundle, tarGz } from '../../infra/agent-bundle.js';

let dir: string;
let entry: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'drover-agent-bundle-test-'));
  mkdirSync(join(dir, 'agent', 'hook-tools'), { recursive: true });
  mkdirSync(join(dir, 'agent', 'lib'), { recursive: true });
  writeFileSync(join(dir, 'agent', 'lib', 'greeting.ts'), 'export const greeting = (who: string): string => `hello ${who}`;\n');
  entry = join(dir, 'agent', 'main.ts');
  writeFileSync(entry, "import { greeting } from './lib/greeting.js';\nconsole.log(greeting('machine'));\n");
  writeFileSync(join(dir, 'agent', 'hook-tools', 'hook-tool.bash'), '#!/bin/bash\necho tool\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the machine agent bundle', () => {
  it('is a tarball GNU tar extracts: machine-agent.js and package.json at the root, the hook tool beside them', () => {
    const bundle = buildAgentBundle(entry);
    const out = join(dir, 'extracted');
    mkdirSync(out);
    execFileSync('tar', ['-xzf', bundle.path, '-C', out, '--no-same-owner']);
    const script = readFileSync(join(out, 'machine-agent.js'), 'utf8');
    expect(script).toContain('hello');
    expect(JSON.parse(readFileSync(join(out, 'package.json'), 'utf8'))).toMatchObject({ type: 'module' });
    expect(statSync(join(out, 'hook-tools', 'hook-tool.bash')).mode & 0o777).toBe(0o755);
    expect(statSync(join(out, 'machine-agent.js')).mode & 0o777).toBe(0o644);
  });

  it('runs under Node as an ES module', () => {
    const out = join(dir, 'extracted');
    expect(execFileSync(process.execPath, [join(out, 'machine-agent.js')], { encoding: 'utf8' })).toBe('hello machine\n');
  });

  it('is byte-for-byte reproducible, and its SHA-256 is that of the file', () => {
    const a = buildAgentBundle(entry);
    const b = buildAgentBundle(entry);
    expect(a.sha256).toBe(b.sha256);
    expect(a.sha256).toMatch(/^[0-9a-f]{64}$/);
    const actual = execFileSync('sha256sum', [a.path], { encoding: 'utf8' }).split(' ')[0];
    expect(actual).toBe(a.sha256);
  });

  it('writes entries in a stable order whatever order they are given in', () => {
    const one = tarGz({ b: { data: Buffer.from('2') }, a: { data: Buffer.from('1') } });
    const two = tarGz({ a: { data: Buffer.from('1') }, b: { data: Buffer.from('2') } });
    expect(one.equals(two)).toBe(true);
  });
});
