// The units section of a status page: principal units in their applications' order, each with its
// subordinates inside it.
import type { Application, Unit } from '../../../domain/entities.js';
import { refs, type EntityRef } from '../../../domain/plan.js';
import { unitDoc, type Context } from '../../../domain/status.js';
import type { UnitEntry } from '../../../domain/status-page.js';
import { collections } from '../../engine/keys.js';
import { collectionCursorAfter, listCollection } from '../../engine/reads.js';
import { listUnits, unitCursorAfter, type UnitLayout } from '../../engine/unit-listing.js';
import type { Store } from '../../engine/store.js';
import { readLeaders } from '../leadership.js';
import type { Position } from '../status-page-cursor.js';
import { bytes, countIn, fits, hasEntities, PARALLEL_READS, readEach, readPresenceOf, type Reader } from './page-reader.js';
import { applicationOfUnit } from '../../../domain/names.js';

/** The principal applications after `after` (a name), a few at a time, and the last application listed (principal or not). */
async function nextPrincipals(reader: Reader, after: string | undefined): Promise<{ apps: Application[]; last?: string }> {
  const { store } = reader;
  const listed = await listCollection(store, collections.applications(store.model), {
    limit: PARALLEL_READS * 2,
    ...(after ? { cursor: collectionCursorAfter(store, refs.application(after)) } : {}),
  });
  const apps = (await readEach<Application>(reader, listed.items)).filter((a): a is Application => a !== undefined && !a.subordinate);
  const last = listed.items[listed.items.length - 1];
  return { apps, ...(last?.kind === 'application' ? { last: last.name } : {}) };
}

/** Listed principal units, where the next page goes on, and the applications they were listed from (their layouts). */
interface Listed {
  refs: EntityRef[];
  next?: Position;
  layouts: Map<string, UnitLayout>;
}

/**
 * The principal units from the position on, up to the page's entity budget, and where the next
 * page goes on. Subordinate applications are skipped: their units come inside their principals'.
 * Each application's units come in number order across its shards (unit-listing.ts).
 */
async function listPrincipalUnits(reader: Reader, position: Position): Promise<Listed> {
  const { store } = reader;
  const want = reader.budget.entities;
  const found: EntityRef[] = [];
  const layouts = new Map<string, UnitLayout>();
  const at = (application: string, after?: string): Position => ({ section: 'units', application, ...(after ? { after } : {}) });
  const list = (app: UnitLayout, limit: number, cursor?: string) =>
    listUnits(store, app, { limit, ...(cursor ? { cursor } : {}), run: reader.bounded });
  let application = position.application;
  if (application && !position.done) {
    // Gone since the last page: so are its units.
    const [app] = await readEach<Application>(reader, [refs.application(application)]);
    if (app) {
      layouts.set(app.name, app);
      const listed = await list(app, want, position.after);
      found.push(...listed.items);
      if (listed.cursor) return { refs: found, layouts, next: at(application, listed.cursor) };
    }
  }
  for (;;) {
    if (application && found.length >= want) return { refs: found, layouts, next: { section: 'units', application, done: true } };
    // The next few principal applications' units are listed in parallel, and taken in order.
    const { apps, last } = await nextPrincipals(reader, application);
    if (!last) return { refs: found, layouts };
    for (const app of apps) layouts.set(app.name, app);
    const listings = await Promise.all(apps.map((app) => list(app, want - found.length)));
    for (const [i, listed] of listings.entries()) {
      const app = apps[i]!;
      if (found.length >= want) return { refs: found, layouts, next: at(app.name) };
      const taken = listed.items.slice(0, want - found.length);
      found.push(...taken);
      if (taken.length < listed.items.length)
        return { refs: found, layouts, next: at(app.name, unitCursorAfter(store, app, nameOf(taken[taken.length - 1]!))) };
      if (listed.cursor) return { refs: found, layouts, next: at(app.name, listed.cursor) };
    }
    application = last;
  }
}

const nameOf = (ref: EntityRef) => (ref.kind === 'unit' ? ref.name : '');

export async function unitsSection(reader: Reader, position: Position): Promise<Position | undefined> {
  const { store, page } = reader;
  const listed = await listPrincipalUnits(reader, position);
  const principals = (await readEach<Unit>(reader, listed.refs)).filter((u): u is Unit => u !== undefined && !u.principal);
  const subordinates = (await readEach<Unit>(reader, principals.flatMap((u) => u.subordinates).map(refs.unit))).filter(
    (u): u is Unit => u !== undefined,
  );
  const all = [...principals, ...subordinates];
  const applicationNames = [...new Set(all.map((u) => u.application))];
  const [applications, leaders, lastSeen] = await Promise.all([
    readEach<Application>(reader, applicationNames.map(refs.application)),
    reader.bounded(() => readLeaders(store, applicationNames)),
    readPresenceOf(
      reader,
      all.map((u) => u.machine),
    ),
  ]);
  const ctx: Context = {
    presence: { ...reader.presence, lastSeen },
    now: reader.now,
    charms: new Map(applications.filter((a): a is Application => a !== undefined).map((a) => [a.name, a.charmUrl])),
    leaders,
  };
  const byName = new Map(all.map((u) => [u.name, u]));
  for (const unit of principals) {
    const entry: UnitEntry = { application: unit.application, name: unit.name, unit: unitDoc(unit, byName, ctx) };
    if (!fits(reader, bytes(entry), hasEntities(page))) return positionBefore(store, position, listed, unit);
    (page.units ??= []).push(entry);
    if (reader.left) {
      const mine = [unit, ...unit.subordinates.flatMap((s) => byName.get(s) ?? [])];
      for (const inError of mine.filter((u) => u.agentStatus.current === 'error'))
        reader.left.unitsInError = countIn(reader.left.unitsInError, inError.name);
    }
  }
  return listed.next;
}

/** Where to go on from when a page ends before `unit`: after the unit listed before it in its application, or that application's start. */
function positionBefore(store: Store, position: Position, listed: Listed, unit: Unit): Position {
  const before = listed.refs[listed.refs.findIndex((r) => r.kind === 'unit' && r.name === unit.name) - 1];
  const resumed = position.application === unit.application && !position.done ? position.after : undefined;
  const layout = listed.layouts.get(unit.application);
  const after =
    before?.kind === 'unit' && applicationOfUnit(before.name) === unit.application && layout
      ? unitCursorAfter(store, layout, before.name)
      : resumed;
  return { section: 'units', application: unit.application, ...(after ? { after } : {}) };
}
