// What `drover ssh` and `scp` share once their command line is read: the model they act on (from
// their own flags only: see ssh-arguments.ts), its client, and how its machines are reached
// (local directories, or EC2 instances through Session Manager).
import type { Command } from 'commander';
import type { ApiClient } from '../client.js';
import type { ControllerEntry } from '../config.js';
import type { Cli } from '../context.js';
import { CliError } from '../errors.js';
import type { SshFlags } from './ssh-arguments.js';
import type { ModelSummary } from '#shared/api/model-summary.js';

export interface SshSession {
  client: ApiClient;
  controller: ControllerEntry;
  model: string;
}

/**
 * The whole command line as the user typed it (commander's parse would mix ssh's words with
 * drover's flags): the program's `rawArgs`, which commander keeps (lib/command.js, parse) but
 * leaves out of its types.
 */
export function rawArguments(command: Command): string[] {
  let root = command;
  while (root.parent) root = root.parent;
  const { rawArgs } = root as unknown as { rawArgs?: string[] };
  if (!rawArgs) throw new CliError('cannot read the command line');
  return rawArgs;
}

export async function openSshSession(cli: Cli, flags: SshFlags): Promise<SshSession> {
  // The model named among ssh's own flags, or none: never a `-m` that commander found among the
  // remote command's words. '' is "the current model" (cli/context.ts).
  const model = flags.model ?? cli.io.env.DROVER_MODEL ?? '';
  const client = await cli.client({ model });
  const { model: name } = await cli.target(model);
  return { client, controller: client.selected.controller, model: name };
}

/** The model's uuid, which a hook on the machine sees as JUJU_MODEL_UUID. */
export async function modelUuid(session: SshSession): Promise<string> {
  const summary = await session.client.get<ModelSummary>('show-model', { name: session.model });
  return summary.uuid;
}

/** The region an AWS controller's instances are in. */
export function regionOf(controller: ControllerEntry): string {
  if (!controller.region) throw new CliError('the controller has no region in the client config: register it again');
  return controller.region;
}

/** The data directory of a local controller, whose machines are its subdirectories. */
export function dataDirOf(controller: ControllerEntry): string {
  if (!controller.dataDir)
    throw new CliError('the local controller has no data directory in the client config: add it with "drover register-local <data dir>"');
  return controller.dataDir;
}
