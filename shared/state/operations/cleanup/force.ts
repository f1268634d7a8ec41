// The `--force` cleanups: each takes its target all the way to removed (shared/state/operations/force.ts).
import { destroyApplication } from '../destroy-application.js';
import { forceRemoveMachine, forceRemoveUnit } from '../force.js';
import { getApplication } from '../../engine/reads.js';
import { listUnits } from '../../engine/unit-listing.js';
import type { CleanupStep } from './step.js';

export const FORCE_UNITS_BATCH = 10;

export const forceUnit: CleanupStep = async (store, cleanup) => {
  await forceRemoveUnit(store, cleanup.target);
  return {};
};

export const forceMachine: CleanupStep = async (store, cleanup) => {
  await forceRemoveMachine(store, cleanup.target);
  return {};
};

export const forceApplication: CleanupStep = async (store, cleanup) => {
  const application = await getApplication(store, cleanup.target);
  // Only the incarnation the user forced: not one deployed again under the same name since.
  const incarnation = cleanup.id.slice(`${cleanup.kind}:${cleanup.target}:`.length);
  if (!application || application.createdAt !== incarnation) return {};
  if (application.life === 'alive') await destroyApplication(store, cleanup.target);
  const page = await listUnits(store, application, {
    limit: FORCE_UNITS_BATCH,
    ...(cleanup.cursor ? { cursor: cleanup.cursor } : {}),
  });
  for (const ref of page.items) if (ref.kind === 'unit') await forceRemoveUnit(store, ref.name);
  return page.cursor ? { cursor: page.cursor } : {};
};
