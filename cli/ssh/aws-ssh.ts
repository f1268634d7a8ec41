// `drover ssh` and `scp` to an EC2 machine: the system's OpenSSH, through AWS Systems Manager
// Session Manager. The instances take no inbound connection at all (no port 22 in any security
// group, no public address needed): ssh's ProxyCommand runs `aws ssm start-session` with AWS's
// own AWS-StartSSHSession document, which opens the instance's port 22 from inside through the
// SSM agent that Canonical's Ubuntu images run. The user needs the AWS CLI, its
// session-manager-plugin and `ssm:StartSession` on the instance; sshd then checks the model's
// keys, which the machine agent keeps in the ubuntu user's authorized_keys
// (docs/deploy-to-aws.md, "Reaching machines with ssh and scp").
//
// The options are Juju's (https://github.com/juju/utils/blob/master/ssh/ssh_openssh.go): no
// password prompts, a keepalive for long commands, `-t -t` for a pty. Host keys: drover does not
// collect them as Juju's controller does, so the first connection to an instance records its key
// in the user's known_hosts (accept-new) and later ones must match it; --no-host-key-checks
// checks nothing, as Juju's.
import type { ChildCommand } from './run-child.js';
import type { ResolvedTarget } from './resolve-target.js';

export interface AwsSshSettings {
  /** The controller's region, where its instances are. */
  region: string;
  noHostKeyChecks: boolean;
  /** The user's environment, passed to ssh (and through it to the AWS CLI: AWS_PROFILE and the like). */
  env: Record<string, string | undefined>;
}

/** The ProxyCommand: ssh substitutes the host (the instance id) for %h and the port for %p. */
export const ssmProxyCommand = (region: string) =>
  `aws ssm start-session --target %h --document-name AWS-StartSSHSession --parameters portNumber=%p --region ${region}`;

function commonOptions(settings: AwsSshSettings): string[] {
  return [
    '-o',
    `ProxyCommand=${ssmProxyCommand(settings.region)}`,
    '-o',
    'PasswordAuthentication=no',
    '-o',
    'ServerAliveInterval=30',
    ...(settings.noHostKeyChecks
      ? ['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null']
      : ['-o', 'StrictHostKeyChecking=accept-new']),
  ];
}

const userHost = (target: ResolvedTarget) => `${target.user}@${target.instanceId}`;

/** `ssh <drover's options> [-t -t] ubuntu@i-... <the user's ssh options> [command...]`, as Juju orders them. */
export function awsSshCommand(
  target: ResolvedTarget,
  request: { pty: boolean; sshOptions: string[]; command: string[] },
  settings: AwsSshSettings,
): ChildCommand {
  return {
    program: 'ssh',
    args: [...commonOptions(settings), ...(request.pty ? ['-t', '-t'] : []), userHost(target), ...request.sshOptions, ...request.command],
    env: settings.env,
  };
}

/** One scp path: a local one as it is, a remote one `ubuntu@i-...:path`. */
export type ScpOperand = string | { target: ResolvedTarget; path: string };

/** `scp <drover's options> <the user's scp options> <source>... <destination>`. */
export function awsScpCommand(operands: ScpOperand[], scpOptions: string[], settings: AwsSshSettings): ChildCommand {
  return {
    program: 'scp',
    args: [
      ...commonOptions(settings),
      ...scpOptions,
      ...operands.map((o) => (typeof o === 'string' ? o : `${userHost(o.target)}:${o.path}`)),
    ],
    env: settings.env,
  };
}
