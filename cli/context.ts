// What every command gets: the io, and the API client of the controller it talks to (chosen by
// `-m [controller:]model` or the current controller).
import { ApiClient } from './client.js';
import { readConfig, selectController } from './config.js';
import { CliError } from './errors.js';
import { colourEnabled, type CliIo } from './io.js';

/** drover controllers hold one model (Juju's `default`). */
export const MODEL_NAME = 'default';

export interface Cli {
  io: CliIo;
  colour: boolean;
  /** The API client for the selected controller. */
  client(options?: { timeoutMs?: number }): Promise<ApiClient>;
}

/** Juju's `-m [controller:]model`: the controller part picks the controller. */
function parseModelOption(value: string | undefined): { controller?: string } {
  if (!value) return {};
  const [controller, model] = value.includes(':') ? (value.split(':', 2) as [string, string]) : [undefined, value];
  if (model && model !== MODEL_NAME) throw new CliError(`model "${model}" not found; drover controllers have one model, "${MODEL_NAME}"`);
  return controller ? { controller } : {};
}

export function createCli(io: CliIo, modelOption: () => string | undefined): Cli {
  return {
    io,
    colour: colourEnabled(io),
    async client(options = {}) {
      const { controller } = parseModelOption(modelOption() ?? io.env.DROVER_MODEL);
      const selected = selectController(await readConfig(io.env), controller);
      return new ApiClient(selected, { signal: io.signal, ...options });
    },
  };
}
