// The model's operations: bootstrap makes it, users set its constraints and config
// (shared/domain/plans/model.ts and model-config.ts decide).
import { randomUUID } from 'node:crypto';
import type { Constraints } from '../../domain/constraints.js';
import type { Model } from '../../domain/entities.js';
import { planEnsureModel, planSetModelConstraints } from '../../domain/plans/model.js';
import { planSetModelConfig, type ModelConfigChange } from '../../domain/plans/model-config.js';
import { planAddModel, type NewModel } from '../../domain/plans/add-model.js';
import { planAddSshKeys, planRemoveSshKeys, type SshKeyResult } from '../../domain/plans/ssh-keys.js';
import { getModel } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import { storeForModel, type Store } from '../engine/store.js';
import { requireModel } from '../queries/model.js';
import { getModelName, listModelNames } from '../queries/models.js';
import { getModelDefaults } from './model-defaults.js';

/** Creates bootstrap's model (named by the store's key, `default`) if it does not exist yet; idempotent. */
export async function ensureModel(store: Store, options: { defaultSeries?: string } = {}): Promise<Model> {
  return runOperation(store, `cannot create model "${store.model}"`, async (store) => {
    const [model, entry, defaults] = await Promise.all([getModel(store), getModelName(store, store.model), getModelDefaults(store)]);
    return planEnsureModel(model, entry, store.model, randomUUID(), options.defaultSeries, defaults);
  });
}

/**
 * A controller starts with bootstrap's model: made when the controller has no model at all (a new
 * one, or one from before models had names, whose `default` gets its name). Once there are
 * models, none is made again, so a destroyed `default` stays destroyed, as in Juju.
 */
export async function bootstrapModel(store: Store): Promise<void> {
  if ((await listModelNames(store)).length === 0) await ensureModel(store);
}

/** add-model: a new model under a fresh uuid, its key, with the controller's model defaults under the config given. */
export async function addModel(store: Store, request: Omit<NewModel, 'uuid' | 'defaults'>): Promise<Model> {
  const uuid = randomUUID();
  return runOperation(storeForModel(store, uuid), `cannot add model "${request.name}"`, async (store) => {
    const [taken, defaults] = await Promise.all([getModelName(store, request.name), getModelDefaults(store)]);
    return planAddModel(taken, { ...request, uuid, ...(defaults ? { defaults } : {}) });
  });
}

export async function setModelConstraints(store: Store, constraints: Constraints): Promise<void> {
  await runOperation(store, 'cannot set model constraints', async (store) =>
    planSetModelConstraints(await requireModel(store), constraints),
  );
}

/** model-config key=value / --reset: the model's settings as they are after the change. */
export async function setModelConfig(store: Store, change: ModelConfigChange): Promise<Record<string, string>> {
  return runOperation(store, 'cannot set model config', async (store) => planSetModelConfig(await requireModel(store), change));
}

/** add-ssh-key: each key's refusal in Juju's words, or null where it was added. */
export async function addSshKeys(store: Store, keys: string[]): Promise<SshKeyResult> {
  return runOperation(store, 'cannot add ssh keys', async (store) => planAddSshKeys(await requireModel(store), keys));
}

/** remove-ssh-key, by fingerprint, comment or the key itself. */
export async function removeSshKeys(store: Store, ids: string[]): Promise<SshKeyResult> {
  return runOperation(store, 'cannot remove ssh keys', async (store) => planRemoveSshKeys(await requireModel(store), ids));
}
