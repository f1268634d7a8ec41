// "assignUnits": a relation just satisfied an application's required relations
// (required-relations-proposal.txt: "Deployed when all required relations are satisfied").
// A principal application's waiting units get machines; a subordinate application's units are
// created by its principals entering (again) the container relations they are already in — "both
// the required relation and the principal side of the relation must be deployed before a
// subordinate is deployed". Either way a page at a time.
import type { Application, Relation } from '../../../domain/entities.js';
import { DroverError } from '../../../domain/errors.js';
import { refs } from '../../../domain/plan.js';
import { assignUnit } from '../assign-unit.js';
import { enterScope } from '../enter-scope.js';
import { getApplication, getMany } from '../../engine/reads.js';
import { listScope } from '../../engine/scope-listing.js';
import { listUnits } from '../../engine/unit-listing.js';
import type { Store } from '../../engine/store.js';
import type { CleanupStep } from './step.js';

export const ASSIGN_BATCH = 10;

/** A unit that is no longer eligible (Dying, its subordinate not yet removed) is skipped, not retried. */
function skipInvalid(e: unknown): undefined {
  if (e instanceof DroverError && e.code !== 'contention') return undefined;
  throw e;
}

export const assignWaitingUnits: CleanupStep = async (store, cleanup) => {
  const application = await getApplication(store, cleanup.target);
  if (!application || application.life !== 'alive') return {};
  return application.subordinate
    ? createSubordinates(store, application.name, application.relations, cleanup.cursor)
    : assignPrincipals(store, application, cleanup.cursor);
};

async function assignPrincipals(store: Store, application: Application, cursor?: string) {
  const page = await listUnits(store, application, {
    limit: ASSIGN_BATCH,
    ...(cursor ? { cursor } : {}),
  });
  for (const ref of page.items) {
    if (ref.kind !== 'unit') continue;
    const result = await assignUnit(store, ref.name).catch(skipInvalid);
    if (!result) continue;
    // Requirements missing again (the relation went away): stop; a new relate schedules anew.
    if (!result.assigned && result.reason === 'required relations still missing') return {};
  }
  return page.cursor ? { cursor: page.cursor } : {};
}

interface SubordinateCursor {
  relation: number;
  scope?: string;
}

async function createSubordinates(store: Store, application: string, relationKeys: string[], cursor?: string) {
  const at: SubordinateCursor = cursor ? JSON.parse(cursor) : { relation: 0 };
  const relations = (await getMany<Relation>(store, relationKeys.map(refs.relation))).filter(
    (r) => r.scope === 'container' && r.life === 'alive',
  );
  const relation = relations[at.relation];
  if (!relation) return {};
  const page = await listScope(store, relation, { limit: ASSIGN_BATCH, ...(at.scope ? { cursor: at.scope } : {}) });
  for (const member of page.items) {
    // Only principals create subordinates; entering again keeps their settings as they are.
    if (!member.unit.startsWith(`${application}/`)) await enterScope(store, member.unit, relation.key, {}).catch(skipInvalid);
  }
  const next: SubordinateCursor = page.cursor ? { relation: at.relation, scope: page.cursor } : { relation: at.relation + 1 };
  return next.relation < relations.length ? { cursor: JSON.stringify(next) } : {};
}
