// The Charmhub that info, find and download ask: `--charmhub-url`, else the CHARMHUB_URL
// environment variable (Juju's charmHubCommand reads both), else the current model's
// `charmhub-url` when a controller is selected, else https://api.charmhub.io. These commands
// query Charmhub from the user's machine, as Juju's do; deploy and refresh leave that to the
// controller.
import { charmhubClient, CharmhubError, type CharmhubClient } from '#shared/charmhub/client.js';
import { CHARMHUB_URL, DEFAULT_CHARMHUB_URL, type ModelConfigEntry } from '#shared/domain/model-config.js';
import type { Cli } from './context.js';
import { CliError } from './errors.js';

export async function charmhubUrlFor(cli: Cli, flag: string | undefined): Promise<string> {
  const given = flag ?? cli.io.env.CHARMHUB_URL;
  if (given) {
    // Juju's words: url.ParseRequestURI's refusal, annotated.
    if (!/^https?:\/\/[^/]+/.test(given)) throw new CliError(`invalid charmhub-url: parse "${given}": invalid URI for request`);
    return given;
  }
  let client;
  try {
    client = await cli.client();
  } catch {
    return DEFAULT_CHARMHUB_URL; // no controller: Charmhub itself
  }
  const { config } = await client.post<'model-config', { config: Record<string, ModelConfigEntry> }>('model-config', {});
  return config[CHARMHUB_URL]?.value ?? DEFAULT_CHARMHUB_URL;
}

export async function cliCharmhub(cli: Cli, flag: string | undefined): Promise<CharmhubClient> {
  return charmhubClient(await charmhubUrlFor(cli, flag));
}

/** Charmhub's refusal as the CLI prints it. */
export function charmhubFailure(e: unknown): never {
  if (e instanceof CharmhubError) throw new CliError(e.message);
  throw e;
}
