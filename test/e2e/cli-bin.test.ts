// The `drover` bin as users run it (package.json's bin, cli/drover.mjs), which the e2e tests'
// spawnCli runs too; and `--version`, answered as Juju's `juju --version` is.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientVersion } from '../../cli/version.js';
import { droverArgs, REPO, runCli, spawnCli } from '../support/cli.js';

describe('the drover bin', () => {
  it('is what package.json names, and what the e2e tests spawn', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { bin: { drover: string } };
    expect(droverArgs(['status', '--format', 'json'])).toEqual([join(REPO, pkg.bin.drover), 'status', '--format', 'json']);
  });

  it('prints the version as juju --version does, spawned and in-process alike', async () => {
    // The binary version's form per OS and architecture: test/unit/cli/version.test.ts.
    expect(clientVersion()).toMatch(/^3\.6\.12-(ubuntu|genericlinux)-amd64$/);
    expect(await spawnCli(['--version'], {})).toEqual({ code: 0, stdout: `${clientVersion()}\n`, stderr: '' });
    expect(await runCli(['--version'], {})).toEqual({ code: 0, stdout: `${clientVersion()}\n`, stderr: '' });
    const help = await runCli(['--help'], {});
    expect(help.stdout).toMatch(/--version +print the client version/);
  });
});
