// The client's configuration: which controllers this user knows and which is current, in
// `$DROVER_HOME/controllers.json` (default: `$XDG_CONFIG_HOME/drover`, else `~/.config/drover`).
// It holds the local controllers' tokens, so it is private (0600) and written atomically: a
// crashed or concurrent write never leaves half a file.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { CliError } from './errors.js';

const controllerSchema = z.object({
  type: z.enum(['local', 'aws']),
  apiUrl: z.url(),
  /** local: the bearer token the controller made at bootstrap. */
  token: z.string().optional(),
  /** aws: the region API requests are signed for. */
  region: z.string().optional(),
  /** local: the controller's data directory (its state, log and controller.json). */
  dataDir: z.string().optional(),
  /** local: the controller process. */
  pid: z.number().int().optional(),
  /** The model commands act on when `-m` names none (`switch`, add-model); absent: `default`. */
  model: z.string().optional(),
});

const configSchema = z.object({
  current: z.string().optional(),
  controllers: z.record(z.string(), controllerSchema),
});

export type ControllerEntry = z.infer<typeof controllerSchema>;
export type ClientConfig = z.infer<typeof configSchema>;

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
    throw new CliError(`cannot read ${path}: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CliError(`cannot read ${path}: not valid JSON; fix or remove it`);
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CliError(`cannot read ${path}: "${issue?.path.join('.') ?? ''}" ${issue?.message ?? 'is invalid'}; fix or remove it`);
  }
  return parsed.data;
}

export async function writeConfig(env: Record<string, string | undefined>, config: ClientConfig): Promise<void> {
  const home = droverHome(env);
  await mkdir(home, { recursive: true, mode: 0o700 });
  const path = configPath(env);
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
