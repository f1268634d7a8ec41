// scp [--no-host-key-checks] [--proxy] [-- scp options] <source>... <destination>: Juju 3.6's
// `juju scp` (https://github.com/juju/juju/blob/3.6/cmd/juju/ssh/scp.go): a remote path is
// `[user@]<machine|unit|app/leader>:<path>`, relative to the remote home; anything else is local.
// jubilant calls `juju scp -- <options> <source> <destination>`.
//
// On the local controller a machine's home is its directory (cli/ssh/local-machine.ts) and the
// copy is made on this host with scp's rules (cli/ssh/local-copy.ts: -r for directories, -p
// keeps times, other options mean nothing there); on AWS it is the system scp through Session
// Manager (cli/ssh/aws-ssh.ts).
import type { Command } from 'commander';
import type { Cli } from '../context.js';
import { awsScpCommand, type ScpOperand } from '../ssh/aws-ssh.js';
import { copyPaths, onMachine, scpFlags, type CopyPath } from '../ssh/local-copy.js';
import { localMachineDir } from '../ssh/local-machine.js';
import { resolveTarget, type ResolvedTarget } from '../ssh/resolve-target.js';
import { runChildAndExit } from '../ssh/run-child.js';
import { parseScpPath, readSshCommandLine, splitScpWords } from '../ssh/ssh-arguments.js';
import { dataDirOf, openSshSession, rawArguments, regionOf } from '../ssh/ssh-session.js';

export function registerScp(program: Command, cli: Cli): void {
  program
    .command('scp')
    .description('Securely transfer files within a model: between this host and its machines, or between machines.')
    .usage('[--no-host-key-checks] [--proxy] [-- scp options] <source>... <destination>')
    .argument('[paths...]', 'sources and a destination: local paths or <target>:<path>')
    .option('--no-host-key-checks', 'skip host key checking (INSECURE)')
    .option('--proxy', "accepted as Juju has it, and changes nothing: drover's way to a machine (Session Manager on AWS) needs no proxy")
    .allowUnknownOption()
    .allowExcessArguments()
    .helpOption(false)
    .addHelpText(
      'after',
      `
Examples:
  drover scp 2:/var/log/syslog .
  drover scp -- -r mysql/0:/var/log/mysql/ remote-logs
  drover scp file1 file2 2:
  drover scp -- -3 0:file.dat foo/0:`,
    )
    .action(async (_words: string[], _opts: unknown, command: Command) => {
      const { help, flags, words } = readSshCommandLine(rawArguments(command), 'scp');
      if (help) return command.outputHelp();
      const { options, paths } = splitScpWords(words);
      const parsed = paths.map(parseScpPath);
      const session = await openSshSession(cli, flags);
      const resolved = new Map<string, ResolvedTarget>();
      for (const p of parsed) {
        if (p.target && !resolved.has(p.target.text)) resolved.set(p.target.text, await resolveTarget(session.client, p.target));
      }
      if (session.controller.type === 'aws') {
        const operands: ScpOperand[] = parsed.map((p) =>
          p.target ? { target: { ...resolved.get(p.target.text)!, user: p.target.user ?? 'ubuntu' }, path: p.path } : p.path,
        );
        const settings = { region: regionOf(session.controller), noHostKeyChecks: flags.noHostKeyChecks, env: cli.io.env };
        return runChildAndExit(cli.io, awsScpCommand(operands, options, settings));
      }
      const dataDir = dataDirOf(session.controller);
      const local: CopyPath[] = parsed.map((p) =>
        p.target
          ? { shown: p.path, local: onMachine(localMachineDir(dataDir, resolved.get(p.target.text)!), p.path) }
          : { shown: p.path, local: p.path },
      );
      const flagSet = scpFlags(options);
      copyPaths(local.slice(0, -1), local[local.length - 1]!, { recursive: flagSet.has('r'), preserve: flagSet.has('p') });
    });
}
