// `drover ssh`, `scp` and the model's SSH keys on the real local controller, where a machine is a
// directory on this host run by its agent (cli/ssh/local-machine.ts): a command runs there with
// the machine's environment and drover exits with its status, stdin reaching it; files go both
// ways, directories with -r; keys added, listed and removed reach the machine's authorized_keys
// through its agent; unknown targets are refused in Juju's words.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { charmDir, droverArgs, REPO, spawnCli, type CliResult } from '../support/cli.js';

const ED25519 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFXGHBWQxZAJ8gEVQqJLpDkpdIgyz6iBm9HZxi2D0Y48 fuzz@host';
const ED25519_PRINT = '3a:20:ef:48:01:8e:58:bf:c9:54:4f:dd:9d:ab:40:4c';
const ECDSA =
  'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBC9JDPGsDbFjqIlrgtye8Pg1QdvJLrZrI76Awi857/yJmDl/pDtf2KnjNw95Srs+iExUmop0wHI+7STxNYTJPY8= ecdsa@host';
const ECDSA_PRINT = '50:2a:8e:a3:e0:87:2f:57:44:ce:66:79:c3:64:a0:73';

const home = mkdtempSync(join(tmpdir(), 'drover-ssh-'));
const dataDir = join(home, 'controller');
const machineDir = join(dataDir, 'machines', '0');
const authorizedKeys = join(machineDir, '.ssh', 'authorized_keys');
const env = { DROVER_HOME: home };
const cli = (...args: string[]) => spawnCli(args, env);
const drover = async (...args: string[]) => {
  const res = await cli(...args);
  expect(res.code, `drover ${args.join(' ')}: ${res.stderr}`).toBe(0);
  return res;
};

/** `drover <args>` with `input` on its stdin, as a pipe into it from a shell. */
function droverWithInput(args: string[], input: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, droverArgs(args), { cwd: REPO, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input);
  });
}

const keysOnMachine = () => (existsSync(authorizedKeys) ? readFileSync(authorizedKeys, 'utf8') : '');

beforeAll(async () => {
  await drover('bootstrap', 'local', '--data-dir', dataDir);
  // A key the model has before its first machine: the machine's agent installs it when it starts.
  await drover('add-ssh-key', ED25519);
  await drover('deploy', charmDir('database'));
  await waitFor(
    "machine 0's agent",
    async () => JSON.parse((await drover('status', '--format', 'json')).stdout).machines?.['0']?.['instance-id'] as string | undefined,
    (id) => id !== undefined && id !== 'pending',
    120_000,
  );
}, 240_000);

afterAll(async () => {
  await spawnCli(['kill-controller', 'local', '-y'], env);
}, 60_000);

describe('ssh on the local controller', () => {
  it("runs a command in the machine's directory with its environment, and exits with the command's status", async () => {
    const res = await cli('ssh', 'database/0', 'echo $JUJU_MACHINE_ID $JUJU_MODEL_NAME; pwd; echo oops >&2; exit 3');
    expect(res).toEqual({ code: 3, stdout: `0 default\n${machineDir}\n`, stderr: 'oops\n' });
    // The leader's machine, and the words after the target as ssh joins them (its options ignored here).
    expect(await cli('ssh', 'database/leader', '-o', 'ConnectTimeout=5', 'test', '"$HOME"', '=', machineDir, '&&', 'echo', 'home')).toEqual(
      {
        code: 0,
        stdout: 'home\n',
        stderr: '',
      },
    );
    // Every word after the target is the command's: its -h is no help, its -m no model.
    expect((await drover('ssh', '0', 'echo', '-h', '--version')).stdout).toBe('-h --version\n');
    expect((await droverWithInput(['ssh', '0', 'grep', '-m', '1', 'b'], 'a\nb\nb\n')).stdout).toBe('b\n');
  }, 60_000);

  it('passes stdin through, and reads a script from it when given no command', async () => {
    expect(await droverWithInput(['ssh', '0', 'tr', 'a-z', 'A-Z'], 'hello\n')).toEqual({ code: 0, stdout: 'HELLO\n', stderr: '' });
    expect(await droverWithInput(['ssh', '0'], 'echo $JUJU_MACHINE_ID\nexit 4\n')).toEqual({ code: 4, stdout: '0\n', stderr: '' });
  }, 60_000);

  it("refuses unknown targets in Juju's words, with exit 1", async () => {
    expect(await cli('ssh', 'database/9', 'true')).toEqual({ code: 1, stdout: '', stderr: 'ERROR unit "database/9" not found\n' });
    expect(await cli('ssh', '7', 'true')).toEqual({ code: 1, stdout: '', stderr: 'ERROR machine 7 not found\n' });
    expect(await cli('ssh', 'nothing/leader', 'true')).toEqual({ code: 1, stdout: '', stderr: 'ERROR application "nothing" not found\n' });
    expect(await cli('ssh')).toEqual({ code: 2, stdout: '', stderr: 'ERROR no target name specified\n' });
  }, 60_000);

  it('is listed with scp and the key commands, and --help before the target is its help', async () => {
    const help = await drover('help');
    for (const verb of ['ssh', 'scp', 'add-ssh-key', 'ssh-keys', 'list-ssh-keys', 'remove-ssh-key', 'import-ssh-key'])
      expect(help.stdout).toMatch(new RegExp(`(\\n  |Alias: (.*, )?)${verb}\\b`));
    expect((await drover('ssh', '--help')).stdout).toContain('Examples:\n  drover ssh 0\n');
    expect((await drover('scp', '-h')).stdout).toContain('drover scp -- -r mysql/0:/var/log/mysql/ remote-logs');
  }, 60_000);
});

describe('scp on the local controller', () => {
  it("copies files both ways, relative remote paths from the machine's home", async () => {
    const notes = join(home, 'notes.txt');
    writeFileSync(notes, 'to the machine\n');
    await drover('scp', notes, '0:');
    expect(readFileSync(join(machineDir, 'notes.txt'), 'utf8')).toBe('to the machine\n');
    await drover('scp', '--', notes, 'database/0:copy.txt');
    expect(readFileSync(join(machineDir, 'copy.txt'), 'utf8')).toBe('to the machine\n');
    writeFileSync(join(machineDir, 'made-there.txt'), 'from the machine\n');
    await drover('scp', 'database/leader:made-there.txt', join(home, 'back.txt'));
    expect(readFileSync(join(home, 'back.txt'), 'utf8')).toBe('from the machine\n');
    expect(await cli('scp', '0:absent.txt', home)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'ERROR exit status 1 (scp: absent.txt: No such file or directory)\n',
    });
    expect(await cli('scp', notes)).toEqual({ code: 2, stdout: '', stderr: 'ERROR at least two arguments required\n' });
  }, 60_000);

  it('copies directories with -r only', async () => {
    const tree = join(home, 'tree');
    mkdirSync(join(tree, 'inner'), { recursive: true });
    writeFileSync(join(tree, 'inner', 'leaf.txt'), 'leaf\n');
    expect(await cli('scp', tree, '0:')).toEqual({
      code: 1,
      stdout: '',
      stderr: `ERROR exit status 1 (scp: ${tree}: not a regular file)\n`,
    });
    await drover('scp', '--', '-r', tree, '0:');
    expect(readFileSync(join(machineDir, 'tree', 'inner', 'leaf.txt'), 'utf8')).toBe('leaf\n');
    const back = join(home, 'back');
    mkdirSync(back);
    await drover('scp', '--', '-r', '0:tree', back);
    expect(readFileSync(join(back, 'tree', 'inner', 'leaf.txt'), 'utf8')).toBe('leaf\n');
  }, 60_000);
});

describe("the model's SSH keys", () => {
  it('are added, listed and removed as Juju does, and the machine agent keeps authorized_keys in step', async () => {
    await waitFor('the first key on machine 0', keysOnMachine, (text) => text.includes('Juju:fuzz@host'), 60_000);
    expect(await cli('add-ssh-key', ECDSA, 'ssh-rsa nope', ED25519)).toEqual({
      code: 0,
      stdout: '',
      stderr: `cannot add key "ssh-rsa nope": invalid ssh key: ssh-rsa nope\ncannot add key "${ED25519}": duplicate ssh key: ${ED25519}\n`,
    });
    expect((await drover('ssh-keys')).stdout).toBe(
      `Keys used in model: admin/default\n${ED25519_PRINT} (fuzz@host)\n${ECDSA_PRINT} (ecdsa@host)\n`,
    );
    expect((await drover('list-ssh-keys', '--full')).stdout).toBe(`Keys used in model: admin/default\n${ED25519}\n${ECDSA}\n`);
    await waitFor('the second key on machine 0', keysOnMachine, (text) => text.includes('Juju:ecdsa@host'), 60_000);
    expect(keysOnMachine()).toBe(`${ED25519.replace('fuzz@host', 'Juju:fuzz@host')}\n${ECDSA.replace('ecdsa@host', 'Juju:ecdsa@host')}\n`);

    expect(await cli('remove-ssh-key', 'fuzz@host', 'nobody@nowhere')).toEqual({
      code: 0,
      stdout: '',
      stderr: 'cannot remove key id "nobody@nowhere": invalid ssh key: nobody@nowhere\n',
    });
    await waitFor('the first key gone from machine 0', keysOnMachine, (text) => !text.includes('fuzz@host'), 60_000);
    await drover('remove-ssh-key', ECDSA_PRINT);
    await waitFor('no key left on machine 0', keysOnMachine, (text) => text === '', 60_000);
    expect(await cli('ssh-keys')).toEqual({ code: 0, stdout: '', stderr: 'No keys to display.\n' });

    expect(await cli('add-ssh-key')).toEqual({ code: 2, stdout: '', stderr: 'ERROR no ssh key specified\n' });
    expect(await cli('remove-ssh-key')).toEqual({ code: 2, stdout: '', stderr: 'ERROR no ssh key id specified\n' });
    const imported = await cli('import-ssh-key', 'gh:someone');
    expect(imported.code).toBe(1);
    expect(imported.stderr).toMatch(/^ERROR importing ssh keys not supported: the controller does not reach Launchpad or GitHub; /);
  }, 240_000);
});
