// The client's configuration: which controllers this user knows and which is current, in
// `$DROVER_HOME/controllers.json` (default: `$XDG_CONFIG_HOME/drover`, else `~/.config/drover`).
// It holds the local controllers' tokens, so it is private (0600) and written atomically: a
// crashed or concurrent write never leaves half a file.
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError } from './errors.js';
import { errorMessage } from '#shared/domain/errors.js';

export interface ControllerEntry {
  type: 'local' | 'aws';
  apiUrl: string;
  /** local: the bearer token the controller made at bootstrap. */
  token?: string;
  /** aws: the region API requests are signed for. */
  region?: string;
  /** local: the controller's data directory (its state, log and controller.json). */
  dataDir?: string;
  /** local: the controller process. */
  pid?: number;
  /** The model commands act on when `-m` names none (`switch`, add-model); absent: `default`. */
  model?: string;
}

export interface ClientConfig {
  current?: string;
  controllers: Record<string, ControllerEntry>;
}

// Checked by hand, not with a zod schema: every command reads this file, and building zod's
// schemas cost ~15 ms of CPU a run, most of a `drover status` beyond Node's own start-up
// (bench/RESULTS.md, "CLI start-up"). Unknown keys are dropped, as a zod object drops them.

/** A problem with the file: the key it is at, and what is wrong. */
class ConfigProblem extends Error {
  constructor(
    readonly at: string,
    message: string,
  ) {
    super(message);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function optionalString(entry: Record<string, unknown>, key: string, at: string): string | undefined {
  const value = entry[key];
  if (value !== undefined && typeof value !== 'string') throw new ConfigProblem(at ? `${at}.${key}` : key, 'must be a string');
  return value as string | undefined;
}

function checkedController(value: unknown, at: string): ControllerEntry {
  if (!isObject(value)) throw new ConfigProblem(at, 'must be an object');
  if (value.type !== 'local' && value.type !== 'aws') throw new ConfigProblem(`${at}.type`, 'must be "local" or "aws"');
  const apiUrl = value.apiUrl;
  if (typeof apiUrl !== 'string' || !URL.canParse(apiUrl)) throw new ConfigProblem(`${at}.apiUrl`, 'must be a URL');
  if (value.pid !== undefined && !Number.isSafeInteger(value.pid)) throw new ConfigProblem(`${at}.pid`, 'must be an integer');
  const entry: ControllerEntry = { type: value.type, apiUrl };
  for (const key of ['token', 'region', 'dataDir', 'model'] as const) {
    const text = optionalString(value, key, at);
    if (text !== undefined) entry[key] = text;
  }
  if (value.pid !== undefined) entry.pid = value.pid as number;
  return entry;
}

function checkedConfig(value: unknown): ClientConfig {
  if (!isObject(value)) throw new ConfigProblem('', 'must be an object');
  const current = optionalString(value, 'current', '');
  if (!isObject(value.controllers)) throw new ConfigProblem('controllers', 'must be an object');
  const controllers: Record<string, ControllerEntry> = {};
  for (const [name, entry] of Object.entries(value.controllers)) controllers[name] = checkedController(entry, `controllers.${name}`);
  return { ...(current !== undefined ? { current } : {}), controllers };
}

export function droverHome(env: Record<string, string | undefined>): string {
  if (env.DROVER_HOME) return env.DROVER_HOME;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'drover');
}

export const configPath = (env: Record<string, string | undefined>) => join(droverHome(env), 'controllers.json');

export async function readConfig(env: Record<string, string | undefined>): Promise<ClientConfig> {
  const path = configPath(env);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { controllers: {} };
    throw new CliError(`cannot read ${path}: ${errorMessage(e)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CliError(`cannot read ${path}: not valid JSON; fix or remove it`);
  }
  try {
    return checkedConfig(raw);
  } catch (e) {
    if (!(e instanceof ConfigProblem)) throw e;
    throw new CliError(`cannot read ${path}: "${e.at}" ${e.message}; fix or remove it`);
  }
}

export async function writeConfig(env: Record<string, string | undefined>, config: ClientConfig): Promise<void> {
  const home = droverHome(env);
  await mkdir(home, { recursive: true, mode: 0o700 });
  const path = configPath(env);
  // node:crypto is loaded by writes alone: every command reads the config, few write it.
  const { randomBytes } = await import('node:crypto');
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // writeFile's mode is masked by the umask; the token must not be readable by others.
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

/** Reads, changes and writes the config; the change may throw to leave it untouched. */
export async function updateConfig(env: Record<string, string | undefined>, change: (config: ClientConfig) => void): Promise<ClientConfig> {
  const config = await readConfig(env);
  change(config);
  await writeConfig(env, config);
  return config;
}

export interface SelectedController {
  name: string;
  controller: ControllerEntry;
}

/** The controller a command talks to: `-m <controller>:` if given, else the current one. */
export function selectController(config: ClientConfig, requested?: string): SelectedController {
  const name = requested || config.current;
  if (!name) {
    throw new CliError(
      Object.keys(config.controllers).length
        ? 'no controller selected; use "drover switch <name>" (see "drover controllers")'
        : 'no controllers registered; create one with "drover bootstrap local", or add an AWS controller with "drover register <api-url>"',
    );
  }
  const controller = config.controllers[name];
  // Juju's words (its client store's NotFound).
  if (!controller) throw new CliError(`controller ${name} not found`);
  return { name, controller };
}
