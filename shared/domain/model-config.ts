// Model configuration (`juju model-config`): the keys drover knows, their defaults and Juju's
// validation. Only keys set explicitly are stored; the rest show as `default`.
// update-status-hook-interval: "How often to run the charm update-status hook, in time.Duration
// format. Update-status hook frequency is randomized at run time by up to 20%" (juju/juju
// environs/config). logging-config: the agents' loggo levels, `<module>=<LEVEL>;...`; drover
// keeps and shows it as Juju does (agents log every level; debug-log --level filters).
// charmhub-url: where the controller resolves and downloads charms deployed by name (Juju's
// environs/config CharmHubURLKey); like Juju, fixed when the model is created (add-model --config).
// authorized-keys: the model's SSH keys, one authorized_keys line each, which the agents install
// on every machine (add-ssh-key and friends change it key by key: shared/domain/ssh-keys.ts).
import { errorMessage, invalidArgument } from './errors.js';
import { AUTHORIZED_KEYS, parseAuthorizedKey, splitAuthorizedKeys } from './ssh-keys.js';
import { ownValue } from './own-keys.js';

export const UPDATE_STATUS_HOOK_INTERVAL = 'update-status-hook-interval';
export const LOGGING_CONFIG = 'logging-config';
export const CHARMHUB_URL = 'charmhub-url';
export const DEFAULT_CHARMHUB_URL = 'https://api.charmhub.io';

export const MODEL_CONFIG_DEFAULTS: Record<string, string> = {
  [AUTHORIZED_KEYS]: '',
  [CHARMHUB_URL]: DEFAULT_CHARMHUB_URL,
  [LOGGING_CONFIG]: '<root>=INFO',
  [UPDATE_STATUS_HOOK_INTERVAL]: '5m',
};

const LOGGO_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARNING', 'WARN', 'ERROR', 'CRITICAL'];

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration (`5m`, `1m30s`, `1.5h`, `300ms`), in milliseconds. */
export function parseGoDuration(text: string): number {
  const bad = () => invalidArgument(`time: invalid duration "${text}"`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw bad();
  let total = 0;
  while (rest !== '') {
    const number = /^(\d+(?:\.\d*)?|\.\d+)/.exec(rest);
    if (!number) throw bad();
    rest = rest.slice(number[0].length);
    const unit = /^[^\d.]+/.exec(rest)?.[0];
    if (unit === undefined) throw invalidArgument(`time: missing unit in duration "${text}"`);
    const factor = UNIT_MS[unit];
    if (factor === undefined) throw invalidArgument(`time: unknown unit "${unit}" in duration "${text}"`);
    total += Number(number[1]) * factor;
    rest = rest.slice(unit.length);
  }
  return sign * total;
}

/** Go's Duration.String for whole milliseconds: `1m0s`, `1h0m0s`, `1.5s`. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  if (h === 0 && m === 0 && ms < 1000) return `${ms}ms`;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}s`;
}

/** drover acts on a few keys only: any other is refused rather than stored and ignored. */
export function checkModelConfigKey(key: string): void {
  if (!Object.hasOwn(MODEL_CONFIG_DEFAULTS, key)) throw invalidArgument(`unknown model config key "${key}"`);
}

/** loggo's ParseConfigString: `<module>=<LEVEL>` entries separated by `;` (or `,`), in its words. */
function checkLoggingConfig(value: string): void {
  for (const entry of value.split(/[;,]/)) {
    const spec = entry.trim();
    if (spec === '') continue;
    const eq = spec.indexOf('=');
    if (eq < 0) throw invalidArgument(`logger specification expected '=', found "${spec}"`);
    const name = spec.slice(0, eq).trim();
    const level = spec.slice(eq + 1).trim();
    if (name === '') throw invalidArgument(`logger specification "${spec}" has blank name`);
    if (!LOGGO_LEVELS.includes(level.toUpperCase())) throw invalidArgument(`unknown severity level "${level}"`);
  }
}

/**
 * Juju's words for a value it refuses. update-status-hook-interval takes any Go duration: Juju
 * 3.6's environs/config states bounds of 1m and 60m, but annotates a nil error there, so they
 * never refuse anything, and tests rely on that (pytest-operator's fast_forward sets `10s`). A
 * duration that is not positive is kept, and agents run update-status on the default instead.
 */
export function validateModelConfig(key: string, value: string): void {
  checkModelConfigKey(key);
  if (key === UPDATE_STATUS_HOOK_INTERVAL) {
    try {
      parseGoDuration(value);
    } catch (e) {
      throw invalidArgument(`invalid update status hook interval in model configuration: ${errorMessage(e)}`);
    }
  }
  if (key === LOGGING_CONFIG) checkLoggingConfig(value);
  if (key === AUTHORIZED_KEYS) {
    for (const line of splitAuthorizedKeys(value)) if (!parseAuthorizedKey(line)) throw invalidArgument(`invalid ssh key: ${line}`);
  }
  if (key === CHARMHUB_URL) checkCharmhubUrl(value);
}

/** Juju checks the URL parses with a scheme and host (environs/config's charmhub-url validation). */
function checkCharmhubUrl(value: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.host === '') throw invalidArgument(`charmhub-url: invalid URL "${value}"`);
}

/**
 * Juju keeps some keys as the model was created: a change is refused in its words
 * (environs/config Validate: "cannot change %s from %#v to %#v").
 */
export function checkImmutableModelConfig(before: Record<string, string> | undefined, set: Record<string, string>, reset: string[]): void {
  const old = before?.[CHARMHUB_URL] ?? DEFAULT_CHARMHUB_URL;
  const next = Object.hasOwn(set, CHARMHUB_URL) ? set[CHARMHUB_URL]! : reset.includes(CHARMHUB_URL) ? DEFAULT_CHARMHUB_URL : old;
  if (next !== old) throw invalidArgument(`cannot change ${CHARMHUB_URL} from ${JSON.stringify(old)} to ${JSON.stringify(next)}`);
}

/** The Charmhub the model's charms come from. */
export const charmhubUrlOf = (config: Record<string, string> | undefined): string => config?.[CHARMHUB_URL] ?? DEFAULT_CHARMHUB_URL;

export interface ModelConfigEntry {
  value: string;
  source: 'default' | 'controller' | 'model';
}

/**
 * Every key with its effective value and where it comes from, sorted by key. A value the model
 * holds that is the controller's default for the key shows as `controller`, as Juju names the
 * source of a value by the last level whose value it matches (its model config sources).
 */
export function effectiveModelConfig(
  config: Record<string, string> | undefined,
  controllerDefaults: Record<string, string> = {},
): Record<string, ModelConfigEntry> {
  const out: Record<string, ModelConfigEntry> = {};
  for (const key of Object.keys(MODEL_CONFIG_DEFAULTS).sort()) {
    const set = config && ownValue(config, key);
    if (set === undefined) out[key] = { value: MODEL_CONFIG_DEFAULTS[key]!, source: 'default' };
    else out[key] = { value: set, source: ownValue(controllerDefaults, key) === set ? 'controller' : 'model' };
  }
  return out;
}

/**
 * The update-status interval the agents use, in milliseconds. A value the store holds but that
 * does not parse (an older controller's) falls back to the default rather than stopping agents.
 */
export function updateStatusIntervalMs(config: Record<string, string> | undefined): number {
  const text = (config && ownValue(config, UPDATE_STATUS_HOOK_INTERVAL)) ?? MODEL_CONFIG_DEFAULTS[UPDATE_STATUS_HOOK_INTERVAL]!;
  try {
    const ms = parseGoDuration(text);
    if (ms > 0) return ms;
  } catch {
    // fall through
  }
  return parseGoDuration(MODEL_CONFIG_DEFAULTS[UPDATE_STATUS_HOOK_INTERVAL]!);
}
