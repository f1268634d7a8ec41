// `drover version`, in the shape of Juju 3.6's `juju version [--all] [--format]`, which jubilant's
// Version parses (`<major>.<minor>.<patch>-<release>-<arch>`).
import { describe, expect, it } from 'vitest';
import { binaryVersion, osTypeName } from '../../../cli/version.js';
import { runCli } from '../../support/cli.js';

describe('version', () => {
  it("names the host as Juju's binary version does: OS type, then architecture", () => {
    expect(osTypeName('linux', 'NAME="Ubuntu"\nID=ubuntu\n')).toBe('ubuntu');
    expect(osTypeName('linux', 'ID="debian"\n')).toBe('genericlinux');
    expect(osTypeName('linux', undefined)).toBe('genericlinux');
    expect(osTypeName('darwin', undefined)).toBe('osx');
    expect(binaryVersion('linux', 'x64', 'ID=ubuntu')).toBe('3.6.12-ubuntu-amd64');
    expect(binaryVersion('linux', 'arm64', 'ID=ubuntu')).toBe('3.6.12-ubuntu-arm64');
  });

  it('prints the version plainly, and every detail with --all in JSON or YAML', async () => {
    const plain = await runCli(['version'], {});
    expect(plain).toMatchObject({ code: 0, stderr: '' });
    expect(plain.stdout).toMatch(/^3\.6\.12-[a-z]+-[a-z0-9]+\n$/);
    const all = await runCli(['version', '--format', 'json', '--all'], {});
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toEqual({ version: plain.stdout.trim(), compiler: 'node', official: false });
    expect((await runCli(['version', '--format', 'json'], {})).stdout).toBe(`${JSON.stringify(plain.stdout.trim())}\n`);
    expect((await runCli(['version', '--all'], {})).stdout).toBe(`version: ${plain.stdout.trim()}\ncompiler: node\nofficial: false\n`);
  });
});
