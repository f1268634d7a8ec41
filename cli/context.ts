// What every command gets: the io, and the API client of the controller and model it talks to
// (chosen by `-m [controller:]model`, or the current controller and its current model).
import { MODEL_HEADER } from '#shared/api/model-header.js';
import { DEFAULT_MODEL } from '#shared/domain/models.js';
import { ApiClient } from './client.js';
import { readConfig, selectController, type ClientConfig } from './config.js';
import { colourEnabled, type CliIo } from './io.js';

export interface Cli {
  io: CliIo;
  colour: boolean;
  /**
   * The API client for the selected controller, its requests naming the selected model; `model`
   * (`[controller:]model`, a command's argument) selects instead of `-m`.
   */
  client(options?: { timeoutMs?: number; model?: string }): Promise<ApiClient>;
  /** The API client of a controller by name (switch checks a model there before selecting it). */
  clientOf(controller: string): Promise<ApiClient>;
  /** The selected controller's name and the selected model's. */
  target(model?: string): Promise<{ controller: string; model: string }>;
}

/** Juju's `-m [controller:]model`: `ctl:` is that controller's current model, `model` one on the current controller. */
export function parseModelOption(value: string | undefined): { controller?: string; model?: string } {
  if (!value) return {};
  if (!value.includes(':')) return { model: value };
  const [controller, model] = value.split(':', 2) as [string, string];
  return { ...(controller ? { controller } : {}), ...(model ? { model } : {}) };
}

/** The model a controller's commands act on when none is named: the one `switch` chose. */
export const currentModelOf = (config: ClientConfig, controller: string) => config.controllers[controller]?.model ?? DEFAULT_MODEL;

export function createCli(io: CliIo, modelOption: () => string | undefined): Cli {
  async function target(model?: string) {
    const requested = parseModelOption(model ?? modelOption() ?? io.env.DROVER_MODEL);
    const config = await readConfig(io.env);
    const selected = selectController(config, requested.controller);
    return { selected, model: requested.model ?? currentModelOf(config, selected.name) };
  }
  return {
    io,
    colour: colourEnabled(io),
    async client({ model: requested, ...options } = {}) {
      const { selected, model } = await target(requested);
      return new ApiClient(selected, { signal: io.signal, headers: { [MODEL_HEADER]: model }, ...options });
    },
    async clientOf(controller) {
      return new ApiClient(selectController(await readConfig(io.env), controller), { signal: io.signal });
    },
    async target(requested) {
      const { selected, model } = await target(requested);
      return { controller: selected.name, model };
    },
  };
}
