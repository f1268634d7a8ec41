// add-ssh-key and remove-ssh-key: Juju's keymanager facade, key by key (shared/domain/ssh-keys.ts
// decides each), then the model's authorized-keys written in one update that asserts the config
// version it read, as model-config's does, so two concurrent changes cannot lose one another. The
// agents install the new keys when the change hints their machines (shared/messaging/hint-plan.ts).
import type { Model } from '../entities.js';
import { addKeys, AUTHORIZED_KEYS, removeKeys, type KeyChange } from '../ssh-keys.js';
import { done, type Plan } from '../plan.js';
import { writeModelConfig } from './model-config.js';

export type SshKeyResult = { errors: (string | null)[] };

function planKeyChange(model: Model, change: KeyChange): Plan<SshKeyResult> {
  const before = model.config ?? {};
  const result = { errors: change.errors };
  if ((before[AUTHORIZED_KEYS] ?? '') === change.value) return done(result);
  const next = { ...before };
  if (change.value === '') delete next[AUTHORIZED_KEYS];
  else next[AUTHORIZED_KEYS] = change.value;
  return { changes: [writeModelConfig(model, next)], result };
}

export const planAddSshKeys = (model: Model, keys: string[]) => planKeyChange(model, addKeys(model.config?.[AUTHORIZED_KEYS], keys));

export const planRemoveSshKeys = (model: Model, ids: string[]) => planKeyChange(model, removeKeys(model.config?.[AUTHORIZED_KEYS], ids));
