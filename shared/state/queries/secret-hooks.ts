// What a unit's secret hooks depend on (shared/domain/secret-hooks.ts): the secrets it manages,
// with their revisions' expiry, rotation schedule and the revisions consumers still track; and
// the secrets it consumes, with the revision it tracks and the latest. Never any content. Access
// is unitSecretAccess's, on the secret as it stands (inForce): what a unit may not use, it hears
// nothing of.
import type { ConsumedSecretState, OwnedSecretState, UnitSecretHookState } from '../../domain/secret-hooks.js';
import { secretUri, unitSecretAccess } from '../../domain/secrets.js';
import type { Store } from '../engine/store.js';
import { getSecretConsumer, inForce, listSecretConsumers, listSecretRevisions, listSecrets, unitLeads } from './secrets.js';

/** A model holds few secrets: each is read with its revisions (owned) or the unit's consumer record (consumed). */
export async function unitSecretHookState(store: Store, unit: string): Promise<UnitSecretHookState> {
  const leader = await unitLeads(store, unit);
  const owned: OwnedSecretState[] = [];
  const consumed: ConsumedSecretState[] = [];
  for (const stored of await listSecrets(store)) {
    const secret = await inForce(store, stored);
    const access = unitSecretAccess(secret, unit, leader);
    const uri = secretUri(secret.id);
    if (access === 'manage') {
      const revisions = await listSecretRevisions(store, secret.id);
      const consumers = await listSecretConsumers(store, secret.id);
      owned.push({
        uri,
        ...(secret.label !== undefined ? { label: secret.label } : {}),
        latestRevision: secret.latestRevision,
        ...(secret.nextRotateTime !== undefined ? { nextRotateTime: secret.nextRotateTime } : {}),
        revisions: revisions.map((r) => ({ revision: r.revision, ...(r.expireTime ? { expireTime: r.expireTime } : {}) })),
        trackedRevisions: [...new Set(consumers.map((c) => c.currentRevision))].sort((a, b) => a - b),
      });
    } else if (access === 'view') {
      const consumer = await getSecretConsumer(store, secret.id, unit);
      if (!consumer) continue; // never read: nothing to tell it of (Juju's consumers are who read it)
      consumed.push({
        uri,
        ...(consumer.label !== undefined ? { label: consumer.label } : {}),
        latestRevision: secret.latestRevision,
        trackedRevision: consumer.currentRevision,
        ...(consumer.seenRevision !== undefined ? { seenRevision: consumer.seenRevision } : {}),
      });
    }
  }
  return { owned, consumed };
}
