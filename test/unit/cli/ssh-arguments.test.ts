// How `drover ssh` and `scp` read their command lines (cli/ssh/ssh-arguments.ts): Juju's flags
// before the target, OpenSSH's words after it, and Juju's words for what is wrong.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../cli/errors.js';
import { parseScpPath, parseTarget, readSshCommandLine, splitScpWords, splitSshWords } from '../../../cli/ssh/ssh-arguments.js';
import { scpFlags } from '../../../cli/ssh/local-copy.js';

describe('ssh and scp command lines', () => {
  it("reads Juju's flags before the target and leaves every later word to ssh, -m and --pty included", () => {
    expect(readSshCommandLine(['-m', 'staging', 'ssh', '--pty=false', '--no-host-key-checks', '0', 'grep', '-m', '1', 'x'], 'ssh')).toEqual(
      {
        flags: { proxy: false, pty: false, noHostKeyChecks: true, model: 'staging' },
        words: ['0', 'grep', '-m', '1', 'x'],
      },
    );
    expect(readSshCommandLine(['ssh', '--proxy', '-mdev', 'mysql/0', '--pty'], 'ssh').flags).toEqual({
      proxy: true,
      noHostKeyChecks: false,
      model: 'dev',
    });
    expect(readSshCommandLine(['scp', '--', '-r', 'a', '0:b'], 'scp').words).toEqual(['-r', 'a', '0:b']);
    expect(readSshCommandLine(['ssh', '--help'], 'ssh').help).toBe(true);
    expect(readSshCommandLine(['ssh', '0', 'df', '-h'], 'ssh').help).toBeUndefined();
  });

  it('refuses flags Juju does not have, and Kubernetes-only ones', () => {
    expect(() => readSshCommandLine(['ssh', '--bogus', '0'], 'ssh')).toThrow(new UsageError('option provided but not defined: --bogus'));
    expect(() => readSshCommandLine(['ssh', '--pty=maybe', '0'], 'ssh')).toThrow('invalid value "maybe" for flag --pty: parse error');
    expect(() => readSshCommandLine(['ssh', '--container', 'charm', '0'], 'ssh')).toThrow('Kubernetes models only');
  });

  it("splits ssh's options from the remote command as getopt does", () => {
    expect(splitSshWords(['mysql/0', '-i', 'key', '-tt', '-p22', 'uname', '-a'])).toEqual({
      target: 'mysql/0',
      options: ['-i', 'key', '-tt', '-p22'],
      command: ['uname', '-a'],
    });
    expect(splitSshWords(['0', '-o', 'A=b', '--', '-x'])).toEqual({ target: '0', options: ['-o', 'A=b'], command: ['-x'] });
    expect(splitSshWords(['0'])).toEqual({ target: '0', options: [], command: [] });
    expect(() => splitSshWords([])).toThrow(new UsageError('no target name specified'));
    expect(() => splitSshWords(['0', '-i'])).toThrow('option requires an argument: -i');
  });

  it('reads scp options, sources and destination, and needs two paths', () => {
    expect(splitScpWords(['-r', '-P', '22', 'a', 'b', '0:'])).toEqual({ options: ['-r', '-P', '22'], paths: ['a', 'b', '0:'] });
    expect(() => splitScpWords(['-r', 'a'])).toThrow(new UsageError('at least two arguments required'));
    expect([...scpFlags(['-rp', '-i', 'key', '-Cq'])].sort()).toEqual(['C', 'p', 'q', 'r']);
  });

  it('takes machines, units and <app>/leader as targets, with a user, and refuses anything else', () => {
    expect(parseTarget('0')).toEqual({ entity: { kind: 'machine', id: '0' }, text: '0' });
    expect(parseTarget('bob@mysql/3')).toEqual({ user: 'bob', entity: { kind: 'unit', name: 'mysql/3' }, text: 'mysql/3' });
    expect(parseTarget('mysql/leader').entity).toEqual({ kind: 'leader', application: 'mysql' });
    for (const bad of ['example.com', 'mysql', 'Mysql/0', '0/lxd/x'])
      expect(() => parseTarget(bad)).toThrow(`"${bad}" is not a machine, a unit or <application>/leader of the model`);
    expect(() => parseTarget('@0')).toThrow('no user name before "@" in "@0"');
  });

  it('reads <target>:<path> as remote and everything else as local, as Juju expandSCPArgs', () => {
    expect(parseScpPath('mysql/0:/var/log')).toEqual({ target: parseTarget('mysql/0'), path: '/var/log' });
    expect(parseScpPath('2:')).toEqual({ target: parseTarget('2'), path: '' });
    expect(parseScpPath('./notes.txt')).toEqual({ path: './notes.txt' });
  });
});
