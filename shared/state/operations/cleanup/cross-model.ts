// A Dying model's offers and remote applications go before its applications: an offer holds its
// application (shared/domain/plans/offers.ts), and a remote application would outlive its model.
// Each is removed by the rule the user's command uses; one refused (an offer with relations, unless
// the model is forced) is left for the cleanup's next round.
import { isDroverError } from '../../../domain/errors.js';
import type { Store } from '../../engine/store.js';
import { listOffers, listRemoteApplications } from '../../queries/offers.js';
import { removeOffer, removeSaas } from '../offers.js';

const leftForNextRound = (e: unknown) => isDroverError(e, 'not-found') || isDroverError(e, 'has-assignments');

export async function removeCrossModelEntries(store: Store, force: boolean): Promise<void> {
  const [saas, offers] = await Promise.all([listRemoteApplications(store), listOffers(store)]);
  for (const remote of saas) await removeSaas(store, remote.name).catch((e: unknown) => ignore(e));
  for (const offer of offers) await removeOffer(store, { name: offer.name, force }).catch((e: unknown) => ignore(e));
}

function ignore(e: unknown): void {
  if (!leftForNextRound(e)) throw e;
}
