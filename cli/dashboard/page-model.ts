// Which model a read of the page is of. The page sends the model it shows in the user API's own
// header (shared/api/model-header.ts), from its `#model=` (docs/dashboard.md, "Models"); without
// it, the read is of the model `drover dashboard` was started on (`-m`, or the current one). The
// name is checked here, in Juju's words, before anything reaches the controller, which answers
// for a model it does not have ("model "x" not found").
import { MODEL_HEADER } from '#shared/api/model-header.js';
import { isDroverError } from '#shared/domain/errors.js';
import { checkModelName } from '#shared/domain/models.js';
import type { ApiClient } from '../client.js';
import { UsageError } from '../errors.js';

export type DashboardClient = Pick<ApiClient, 'get' | 'post' | 'withHeaders'>;

export function clientForPageModel(client: DashboardClient, requested: string | string[] | undefined): Pick<ApiClient, 'get' | 'post'> {
  if (requested === undefined) return client;
  // Node joins a repeated header with ", ", which no model name has: a page sends one model.
  const name = Array.isArray(requested) ? requested.join(', ') : requested;
  try {
    checkModelName(name);
  } catch (e) {
    if (isDroverError(e)) throw new UsageError(e.message);
    throw e;
  }
  return client.withHeaders({ [MODEL_HEADER]: name });
}
