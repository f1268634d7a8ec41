// "units": the units of a Dying application are set Dying a page at a time. lifecycles.txt: "the
// Unit Agents (UAs) for each unit of a service set their corresponding units to Dying when they
// detect their service Dying; this is because we try to assume 100k-scale". The cleanup does the
// same work in bounded batches, so units whose agents never started (and so never will) go too.
import { destroyUnit, destroyUnitByAgent } from '../destroy-unit.js';
import { getApplication } from '../../engine/reads.js';
import { listUnits } from '../../engine/unit-listing.js';
import type { CleanupStep } from './step.js';

export const UNITS_BATCH = 25;

export const destroyUnitsOfDyingApplication: CleanupStep = async (store, cleanup) => {
  const application = await getApplication(store, cleanup.target);
  // Only the incarnation that was destroyed: not one deployed again under the same name since.
  const incarnation = cleanup.id.slice(`${cleanup.kind}:${cleanup.target}:`.length);
  if (!application || application.createdAt !== incarnation) return {};
  const page = await listUnits(store, application, {
    limit: UNITS_BATCH,
    ...(cleanup.cursor ? { cursor: cleanup.cursor } : {}),
  });
  for (const ref of page.items) {
    if (ref.kind !== 'unit') continue;
    // A principal goes the user's way (a never-started one is removed at once); a subordinate
    // the agent's way, since users may not destroy subordinates directly.
    if (application.subordinate) await destroyUnitByAgent(store, ref.name);
    else await destroyUnit(store, ref.name);
  }
  return page.cursor ? { cursor: page.cursor } : {};
};
