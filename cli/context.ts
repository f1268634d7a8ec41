// What every command gets: the io, and the API client of the controller and model it talks to
// (chosen by `-m [controller:]model`, or the current controller and its current model).
import { MODEL_HEADER } from '#shared/api/model-header.js';
import { DEFAULT_MODEL } from '#shared/domain/models.js';
import { ApiClient } from './client.js';
import { readConfig, selectController, type ClientConfig } from './config.js';
import { CliError } from './errors.js';
import { colourEnabled, type CliIo } from './io.js';
import { MODEL_OWNER } from './model-info.js';

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

export interface ModelReference {
  controller?: string;
  /** The user the model is qualified with (`admin/staging`): drover's models are all admin's. */
  owner?: string;
  model?: string;
}

/**
 * Juju's model identifier, `[controller:][owner/]model` (`-m`, show-model, destroy-model, switch):
 * `ctl:` is that controller's current model, `model` one on the current controller.
 */
export function parseModelOption(value: string | undefined): ModelReference {
  if (!value) return {};
  const [controller, rest] = value.includes(':') ? (value.split(':', 2) as [string, string]) : [undefined, value];
  const slash = rest.indexOf('/');
  const [owner, model] = slash >= 0 ? [rest.slice(0, slash), rest.slice(slash + 1)] : [undefined, rest];
  return { ...(controller ? { controller } : {}), ...(owner ? { owner } : {}), ...(model ? { model } : {}) };
}

/** The model a controller's commands act on when none is named: the one `switch` chose. */
export const currentModelOf = (config: ClientConfig, controller: string) => config.controllers[controller]?.model ?? DEFAULT_MODEL;

export function createCli(io: CliIo, modelOption: () => string | undefined): Cli {
  async function target(model?: string) {
    const requested = parseModelOption(model ?? modelOption() ?? io.env.DROVER_MODEL);
    const config = await readConfig(io.env);
    const selected = selectController(config, requested.controller);
    const name = requested.model ?? currentModelOf(config, selected.name);
    // Every model is admin's: another owner's model does not exist (Juju's NotFound for the name).
    if (requested.owner !== undefined && requested.owner !== MODEL_OWNER) {
      throw new CliError(`model ${selected.name}:${requested.owner}/${name} not found`);
    }
    return { selected, model: name };
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
