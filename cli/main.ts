// The `drover` command: Juju's verbs, flags and messages against a local or AWS controller.
// `run(argv, io)` is the whole CLI, so tests drive it in-process; run directly (or through the
// cli/drover.mjs bin), it uses the real terminal and exits with run's code: 0, 1 on failure,
// 2 on usage errors.
import { pathToFileURL } from 'node:url';
import { Command, CommanderError, type Argument } from 'commander';
import { DroverError } from '#shared/domain/errors.js';
import { registerActions } from './commands/actions.js';
import { registerConfig } from './commands/config.js';
import { registerConstraints } from './commands/constraints.js';
import { registerControllers } from './commands/controllers.js';
import { registerDashboard } from './commands/dashboard.js';
import { registerBundles } from './commands/bundles.js';
import { registerDeploy } from './commands/deploy.js';
import { registerDestroyModel } from './commands/destroy-model.js';
import { registerExec } from './commands/exec.js';
import { registerLogs } from './commands/logs.js';
import { registerModelConfig } from './commands/model-config.js';
import { registerModels } from './commands/models.js';
import { registerRelations } from './commands/relations.js';
import { registerRemedies } from './commands/remedies.js';
import { registerRemovals } from './commands/remove.js';
import { registerScale } from './commands/scale.js';
import { registerSecrets } from './commands/secrets.js';
import { registerStatus } from './commands/status.js';
import { registerStuck } from './commands/stuck.js';
import { registerUpgradeCharm } from './commands/upgrade-charm.js';
import { createCli } from './context.js';
import { CliError, ExitCode, UsageError } from './errors.js';
import { processIo, type CliIo } from './io.js';

export type { CliIo } from './io.js';

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

/** One command tree per run, so that in-process runs never share parsed state. */
function buildProgram(io: CliIo): Command {
  const program = new Command('drover');
  const cli = createCli(io, () => program.opts<{ model?: string }>().model);
  program
    .description("drover: a Juju-style controller, serverless on AWS or local. Juju's verbs, flags and messages.")
    .option('-m, --model <[controller:]model>', 'the controller (and model) to talk to; default: the current one')
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      outputError: (text, write) => write(`ERROR ${text.replace(/^error: /, '')}`),
    })
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureHelp(listing)
    .addHelpText('after', OVERVIEW);

  program.commandsGroup('Controllers:');
  registerControllers(program, cli);
  program.commandsGroup('Models:');
  registerModels(program, cli);
  registerDestroyModel(program, cli);
  program.commandsGroup('Deploying and scaling:');
  registerDeploy(program, cli);
  registerBundles(program, cli);
  registerScale(program, cli);
  registerRemovals(program, cli);
  registerUpgradeCharm(program, cli);
  program.commandsGroup('Relations:');
  registerRelations(program, cli);
  program.commandsGroup('Constraints and configuration:');
  registerConstraints(program, cli);
  registerModelConfig(program, cli);
  registerConfig(program, cli);
  registerSecrets(program, cli);
  program.commandsGroup('Errors and provisioning:');
  registerRemedies(program, cli);
  program.commandsGroup('Actions:');
  registerActions(program, cli);
  registerExec(program, cli);
  program.commandsGroup('Inspection:');
  registerStatus(program, cli);
  registerStuck(program, cli);
  registerLogs(program, cli);
  registerDashboard(program, cli);
  return program;
}

function describe(e: unknown): { message: string; code: number; silent: boolean } {
  if (e instanceof ExitCode) return { message: '', code: e.code, silent: true };
  if (e instanceof UsageError) return { message: e.message, code: 2, silent: false };
  if (e instanceof CliError) return { message: e.message, code: 1, silent: e.silent };
  // Checks from shared/domain run in the CLI too (charm metadata, constraints).
  if (e instanceof DroverError) return { message: e.message, code: 1, silent: false };
  return { message: e instanceof Error ? e.message : String(e), code: 1, silent: false };
}

export async function run(argv: string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
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

export async function main(argv = process.argv.slice(2)): Promise<void> {
  process.exitCode = await run(argv, processIo());
}

// Run when executed directly (`node --import tsx cli/main.ts ...`), not when imported.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
