import type { CharmMeta } from '../../domain/charm.js';
import type { CharmhubOrigin } from '../../domain/charm-origin.js';
import type { ApplicationResource } from '../../domain/resources.js';
import type { Relation } from '../../domain/entities.js';
import { refs } from '../../domain/plan.js';
import { planUpgradeCharm, type UpgradeCharmResult } from '../../domain/plans/upgrade-charm.js';
import { getApplication, getMany } from '../engine/reads.js';
import { NumberReservations } from '../engine/number-reservations.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export interface UpgradeCharmRequest {
  charm: CharmMeta;
  charmArchive?: string;
  forceUnits?: boolean;
  /** A Charmhub charm's origin (shared/domain/charm-origin.ts); absent: a local charm. */
  charmOrigin?: CharmhubOrigin;
  /** The application's resources with the new charm's channel's revisions. */
  resources?: Record<string, ApplicationResource>;
  /** `refresh --switch`: the charm may be another (shared/domain/plans/upgrade-charm.ts). */
  switch?: boolean;
  /** `refresh --resource`: uploads already kept, each its resource's next revision. */
  uploads?: Record<string, Omit<ApplicationResource, 'revision'>>;
}

/**
 * upgrade-charm: gives the application the next revision of its charm, in one transaction on the
 * application alone; its unit agents notice the new charm URL and upgrade their charm directories.
 */
export async function upgradeCharm(store: Store, name: string, request: UpgradeCharmRequest): Promise<UpgradeCharmResult> {
  // Ids of the peer relations the new charm adds, kept across attempts.
  const reservations = new NumberReservations(store);
  return runOperation(store, `cannot upgrade application "${name}"`, async (store) => {
    const application = await getApplication(store, name);
    const relations = application ? await getMany<Relation>(store, application.relations.map(refs.relation)) : [];
    return reservations.plan((numbers) =>
      planUpgradeCharm(
        { relations, numbers, ...(application ? { application } : {}) },
        {
          application: name,
          charm: request.charm,
          forceUnits: request.forceUnits ?? false,
          ...(request.charmArchive ? { charmArchive: request.charmArchive } : {}),
          ...(request.charmOrigin ? { charmOrigin: request.charmOrigin } : {}),
          ...(request.resources ? { resources: request.resources } : {}),
          ...(request.switch ? { switch: true } : {}),
          ...(request.uploads ? { uploads: request.uploads } : {}),
        },
        store.now().toISOString(),
      ),
    );
  });
}
