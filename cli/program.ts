// The command tree: every command of cli/command-modules.ts that a run needs, Juju's help layout,
// and how errors become messages and exit codes. Loaded by cli/main.ts for every run but
// `--version`.
import { Command, CommanderError, type Argument } from 'commander';
import { DroverError, errorMessage } from '#shared/domain/errors.js';
import { modulesFor } from './command-modules.js';
import { createCli } from './context.js';
import { CliError, ExitCode, UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { clientVersion } from './version.js';

const OVERVIEW = `
Getting started:
  drover bootstrap local                  # start a controller on this machine
  drover deploy ./charms/mysql            # deploy a charm directory
  drover deploy ./charms/wordpress
  drover relate wordpress mysql
  drover status --relations
  drover add-unit wordpress -n 2
  drover remove-application wordpress

"drover <command> --help" shows a command's flags and examples. Errors are printed as
"ERROR <message>"; the exit status is 1 on failure and 2 on a usage error. Client config
(controllers and credentials) lives in $DROVER_HOME (default ~/.config/drover).`;

const argumentTerm = (a: Argument) => {
  const name = `${a.name()}${a.variadic ? '...' : ''}`;
  return a.required ? `<${name}>` : `[${name}]`;
};

/**
 * The command list: name and arguments (flags are in each command's --help), and every alias
 * (commander shows only the first): Juju users know the old names.
 */
const listing = {
  subcommandTerm: (cmd: Command) => [cmd.name(), ...cmd.registeredArguments.map(argumentTerm)].join(' '),
  subcommandDescription: (cmd: Command) => {
    const aliases = cmd.aliases();
    return `${cmd.summary() || cmd.description()}${aliases.length ? ` Alias: ${aliases.join(', ')}.` : ''}`;
  },
};

/**
 * One command tree per run, so that in-process runs never share parsed state. It holds the
 * commands `argv` needs: the one it names, or all of them (cli/command-modules.ts).
 */
async function buildProgram(io: CliIo, argv: string[]): Promise<Command> {
  const program = new Command('drover');
  const cli = createCli(io, () => program.opts<{ model?: string }>().model);
  program
    .description("drover: a Juju-style controller, serverless on AWS or local. Juju's verbs, flags and messages.")
    .option('-m, --model <[controller:]model>', 'the controller (and model) to talk to; default: the current one')
    .version(clientVersion(), '--version', 'print the client version, as Juju does')
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      outputError: (text, write) => write(`ERROR ${text.replace(/^error: /, '')}`),
    })
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureHelp(listing)
    .addHelpText('after', OVERVIEW);

  const modules = modulesFor(argv);
  if (modules.length === 1 && modules[0]!.ownsItsArguments) program.enablePositionalOptions();
  const registers = await Promise.all(modules.map((m) => m.load()));
  modules.forEach((module, i) => {
    if (module.group) program.commandsGroup(module.group);
    registers[i]!(program, cli);
  });
  return program;
}

function describe(e: unknown): { message: string; code: number; silent: boolean } {
  if (e instanceof ExitCode) return { message: '', code: e.code, silent: true };
  if (e instanceof UsageError) return { message: e.message, code: 2, silent: false };
  if (e instanceof CliError) return { message: e.message, code: 1, silent: e.silent };
  // Checks from shared/domain run in the CLI too (charm metadata, constraints).
  if (e instanceof DroverError) return { message: e.message, code: 1, silent: false };
  return { message: errorMessage(e), code: 1, silent: false };
}

export async function runProgram(argv: string[], io: CliIo): Promise<number> {
  const program = await buildProgram(io, argv);
  if (!argv.length) {
    io.stdout(program.helpInformation());
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    // Commander has printed its own message (usage errors) or the help (exit code 0).
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    const { message, code, silent } = describe(e);
    if (!silent) io.stderr(`ERROR ${message}\n`);
    if (io.env.DROVER_DEBUG && e instanceof Error && !(e instanceof CliError)) io.stderr(`${e.stack}\n`);
    return code;
  }
}
