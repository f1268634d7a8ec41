// "ownerSecrets": deletes the secrets of a removed unit or application, a secret at a time, each
// with its revisions, consumer records and labels (removeSecret, itself in transactions of at
// most MAX_SECRET_ITEMS_PER_REMOVAL items), so a removed owner leaves no orphan behind. An
// application's cleanup takes only the secrets of the deployment it names (its creation time):
// one deployed again under the name keeps its own.
import type { Cleanup } from '../../../domain/entities.js';
import { DroverError } from '../../../domain/errors.js';
import type { SecretMetadata } from '../../../domain/secrets.js';
import { listSecrets } from '../../queries/secrets.js';
import { removeSecret } from '../secrets.js';
import type { CleanupStep } from './step.js';

function ownedBy(secret: SecretMetadata, cleanup: Cleanup): boolean {
  const { owner } = secret;
  if (owner.kind === 'unit') return cleanup.target === `unit-${owner.name}`;
  if (owner.kind !== 'application' || cleanup.target !== `application-${owner.name}`) return false;
  // The incarnation is in the document's id, as the units cleanup keeps it.
  const incarnation = cleanup.id.slice(`${cleanup.kind}:${cleanup.target}:`.length);
  return secret.ownerIncarnation === undefined || secret.ownerIncarnation === incarnation;
}

export const deleteOwnerSecrets: CleanupStep = async (store, cleanup) => {
  const owned = (await listSecrets(store)).filter((s) => ownedBy(s, cleanup));
  const next = owned[0];
  if (!next) return {};
  try {
    await removeSecret(store, next);
  } catch (e) {
    // Another runner of this document removed it first (a batch may run twice).
    if (!(e instanceof DroverError) || e.code !== 'not-found') throw e;
  }
  return owned.length > 1 ? { cursor: 'more' } : {};
};
