// A controller's models. Each model's items live under its own key (shared/state/engine/keys.ts),
// and one item outside every model, its name's, keeps the name unique while the model exists and
// says where the model's items are. A new model's key is its uuid, never a name: a model made
// again under the name of a destroyed one can never meet what the old one left behind. The
// controller's first model, `default`, keeps the key `default`, which controllers made before
// there were many models already use.
import { invalidArgument } from './errors.js';
import type { Life } from './life.js';

/** The model bootstrap makes (Juju's `default`), and which a request naming no model means. */
export const DEFAULT_MODEL = 'default';

/**
 * The key of bootstrap's model, the same as its name: what names a machine outside the table
 * (its queue, its instance's tags and token, its local directory) stays as it was before there
 * were many models for this model's machines, and names another model's only with its key in it.
 */
export const DEFAULT_MODEL_KEY = DEFAULT_MODEL;

/** The name's item: where the model named so keeps its items. */
export interface ModelName {
  name: string;
  /** The prefix of every key of the model's items (the Store's `model`). */
  key: string;
}

// Juju's grammar (juju/names, model.go): lower-case letters, digits and hyphens, not starting with a hyphen.
const MODEL_NAME = /^[a-z0-9]+[a-z0-9-]*$/;

export function checkModelName(name: string): void {
  if (!MODEL_NAME.test(name))
    throw invalidArgument(`"${name}" is not a valid name: model names may only contain lowercase letters, digits and hyphens`);
}

/** A model's status as `models`, `show-model` and `status` show it: Juju's words. */
export const modelStatus = (life: Life): 'available' | 'destroying' => (life === 'alive' ? 'available' : 'destroying');
