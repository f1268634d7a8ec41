// A model config value checked in the CLI before anything is sent, as model-config, model-defaults
// and bootstrap's --model-default check it: the controller's own rule
// (shared/domain/model-config.ts), its refusal printed as the CLI's error.
import { isDroverError } from '#shared/domain/errors.js';
import { validateModelConfig } from '#shared/domain/model-config.js';
import { CliError } from './errors.js';

export function checkModelConfigValue(key: string, value: string): void {
  try {
    validateModelConfig(key, value);
  } catch (e) {
    if (isDroverError(e)) throw new CliError(e.message);
    throw e;
  }
}
