// The ssh and scp command lines drover runs for an EC2 machine (cli/ssh/aws-ssh.ts): through
// Session Manager's AWS-StartSSHSession, with Juju's OpenSSH options.
import { describe, expect, it } from 'vitest';
import { awsScpCommand, awsSshCommand } from '../../../cli/ssh/aws-ssh.js';

const target = { user: 'ubuntu', machine: '3', instanceId: 'i-0123456789abcdef0' };
const settings = { region: 'eu-west-1', noHostKeyChecks: false, env: { AWS_PROFILE: 'prod' } };
const PROXY = [
  '-o',
  'ProxyCommand=aws ssm start-session --target %h --document-name AWS-StartSSHSession --parameters portNumber=%p --region eu-west-1',
  '-o',
  'PasswordAuthentication=no',
  '-o',
  'ServerAliveInterval=30',
];

describe('ssh to an EC2 machine', () => {
  it("runs the system ssh through Session Manager, the user's options after the host as Juju places them", () => {
    expect(awsSshCommand(target, { pty: false, sshOptions: ['-i', 'key'], command: ['uname', '-a'] }, settings)).toEqual({
      program: 'ssh',
      args: [...PROXY, '-o', 'StrictHostKeyChecking=accept-new', 'ubuntu@i-0123456789abcdef0', '-i', 'key', 'uname', '-a'],
      env: { AWS_PROFILE: 'prod' },
    });
  });

  it('forces a pty with -t -t, and checks no host key with --no-host-key-checks', () => {
    const command = awsSshCommand(
      { ...target, user: 'bob' },
      { pty: true, sshOptions: [], command: [] },
      { ...settings, noHostKeyChecks: true },
    );
    expect(command.args).toEqual([
      ...PROXY,
      '-o',
      'StrictHostKeyChecking=no',
      '-o',
      'UserKnownHostsFile=/dev/null',
      '-t',
      '-t',
      'bob@i-0123456789abcdef0',
    ]);
  });

  it('runs scp with the same channel, remote paths as user@instance:path and local ones as they are', () => {
    expect(awsScpCommand(['notes.txt', { target, path: 'docs/' }], ['-r'], settings)).toEqual({
      program: 'scp',
      args: [...PROXY, '-o', 'StrictHostKeyChecking=accept-new', '-r', 'notes.txt', 'ubuntu@i-0123456789abcdef0:docs/'],
      env: { AWS_PROFILE: 'prod' },
    });
  });
});
