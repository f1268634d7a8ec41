// "dyingSubordinates": a container relation stopped being Alive. lifecycles.txt: "A subordinate
// must also become Dying when ... the last Alive relation between its service and its
// principal's service is no longer Alive. This may come about via juju destroy-relation."
import { getApplication } from '../../engine/reads.js';
import { listUnits } from '../../engine/unit-listing.js';
import { ensureSubordinateDying } from '../subordinate-dying.js';
import type { CleanupStep } from './step.js';

export const SUBORDINATES_BATCH = 25;

export const destroyOrphanedSubordinates: CleanupStep = async (store, cleanup) => {
  // The application says where its units are listed; one that is gone has none left.
  const application = await getApplication(store, cleanup.target);
  if (!application) return {};
  const page = await listUnits(store, application, {
    limit: SUBORDINATES_BATCH,
    ...(cleanup.cursor ? { cursor: cleanup.cursor } : {}),
  });
  for (const ref of page.items) {
    // Each unit is checked against its own principal: one still related elsewhere stays Alive.
    if (ref.kind === 'unit') await ensureSubordinateDying(store, ref.name);
  }
  return page.cursor ? { cursor: page.cursor } : {};
};
