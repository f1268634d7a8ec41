// "assignUnits": a relation just satisfied an application's required relations; its waiting
// units get machines, a page at a time (required-relations-proposal.txt: "Deployed when all
// required relations are satisfied").
import { assignUnit } from '../assign-unit.js';
import { collections } from '../keys.js';
import { listCollection } from '../reads.js';
import type { CleanupStep } from './step.js';

export const ASSIGN_BATCH = 10;

export const assignWaitingUnits: CleanupStep = async (store, cleanup) => {
  const page = await listCollection(store, collections.unitsOf(store.model, cleanup.target), {
    limit: ASSIGN_BATCH,
    ...(cleanup.cursor ? { cursor: cleanup.cursor } : {}),
  });
  for (const ref of page.items) {
    if (ref.kind !== 'unit') continue;
    const result = await assignUnit(store, ref.name);
    // Requirements missing again (the relation went away): stop; a new relate schedules anew.
    if (!result.assigned && result.reason === 'required relations still missing') return {};
  }
  return page.cursor ? { cursor: page.cursor } : {};
};
