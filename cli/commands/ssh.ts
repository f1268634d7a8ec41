// ssh <[user@]target> [openssh options] [command...]: Juju 3.6's `juju ssh`
// (https://github.com/juju/juju/blob/3.6/cmd/juju/ssh/ssh.go): the target is a machine, a unit
// or <application>/leader (a unit's machine is the one reached); the command runs there and its
// exit status is drover's; with none, an interactive shell. A pty when stdin is a terminal,
// unless --pty says otherwise.
//
// On the local controller a machine is a directory on this host (cli/ssh/local-machine.ts): the
// command runs there under bash, with the machine's environment as its hooks see it, stdin,
// stdout and stderr passed through; OpenSSH's options mean nothing there and are ignored. On AWS
// it is the system ssh through Session Manager (cli/ssh/aws-ssh.ts).
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { Cli } from '../context.js';
import { awsSshCommand } from '../ssh/aws-ssh.js';
import { localMachineDir, machineShellEnvironment } from '../ssh/local-machine.js';
import { resolveTarget } from '../ssh/resolve-target.js';
import { runChildAndExit } from '../ssh/run-child.js';
import { parseTarget, readSshCommandLine, splitSshWords } from '../ssh/ssh-arguments.js';
import { dataDirOf, modelUuid, openSshSession, rawArguments, regionOf } from '../ssh/ssh-session.js';

const SHELL = existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';

export function registerSsh(program: Command, cli: Cli): void {
  program
    .command('ssh')
    .description('Initiates an SSH session or executes a command on a machine of the model (a unit: its machine).')
    .usage('[--pty[=true|false]] [--no-host-key-checks] [--proxy] <[user@]target> [openssh options] [command...]')
    .argument('[target-and-command...]', 'a machine, unit or <application>/leader, then OpenSSH options and the command')
    .option('--pty [bool]', 'enable pseudo-tty allocation (default: when stdin is a terminal)')
    .option('--no-host-key-checks', 'skip host key checking (INSECURE)')
    .option('--proxy', "accepted as Juju has it, and changes nothing: drover's way to a machine (Session Manager on AWS) needs no proxy")
    .allowUnknownOption()
    .allowExcessArguments()
    .helpOption(false)
    .addHelpText(
      'after',
      `
Examples:
  drover ssh 0
  drover ssh 1 uname -a
  drover ssh mysql/leader
  drover ssh mysql/0 -i ~/.ssh/my_private_key echo hello
  echo 'select 1' | drover ssh mysql/0 mysql`,
    )
    .action(async (_words: string[], _opts: unknown, command: Command) => {
      const { help, flags, words } = readSshCommandLine(rawArguments(command), 'ssh');
      if (help) return command.outputHelp();
      const { target: text, options, command: remote } = splitSshWords(words);
      const target = parseTarget(text);
      const session = await openSshSession(cli, flags);
      const resolved = await resolveTarget(session.client, target);
      const pty = flags.pty ?? cli.io.ownStdio?.stdinIsTTY ?? false;
      if (session.controller.type === 'aws') {
        const settings = { region: regionOf(session.controller), noHostKeyChecks: flags.noHostKeyChecks, env: cli.io.env };
        return runChildAndExit(cli.io, awsSshCommand(resolved, { pty, sshOptions: options, command: remote }, settings));
      }
      const machineDir = localMachineDir(dataDirOf(session.controller), resolved);
      const env = machineShellEnvironment(cli.io.env, {
        machineDir,
        machine: resolved.machine,
        modelName: session.model,
        modelUuid: await modelUuid(session),
      });
      // As sshd runs a command: the words joined, read by the user's shell; no command, a shell.
      const args = remote.length ? ['-c', remote.join(' ')] : [pty ? '-i' : '-s'];
      return runChildAndExit(cli.io, { program: SHELL, args, cwd: machineDir, env });
    });
}
