// An application's config and constraints for the dashboard's detail pane. The API reads both by
// POST (`config` with neither set nor reset, `get-constraints`), as the CLI's `config <app>` and
// `get-constraints <app>` do; the bodies are made here from one checked name, so this read cannot
// be made to write (changes go only through write-routes.ts, guarded as changes).
import { isValidApplicationName } from '#shared/domain/names.js';
import type { ApiClient } from '../client.js';
import { UsageError } from '../errors.js';

export interface ApplicationSettings {
  application: string;
  charm: string;
  config: Record<string, { value?: unknown; default?: unknown; source?: string; description?: string }>;
  constraints: string;
}

export async function readApplicationSettings(client: Pick<ApiClient, 'post'>, application: string | null): Promise<ApplicationSettings> {
  if (!application || !isValidApplicationName(application)) throw new UsageError(`invalid application name "${application ?? ''}"`);
  const [config, constraints] = await Promise.all([
    client.post<'config', { charm: string; settings: ApplicationSettings['config'] }>('config', { application }),
    client.post<'get-constraints', { constraints: string }>('get-constraints', { application }),
  ]);
  return { application, charm: config.charm, config: config.settings, constraints: constraints.constraints };
}
