// `drover status` a page at a time (docs/architecture.md, "Status, a page at a time"): each call
// answers a bounded part of the status document and a cursor for the rest, so that neither the
// answer (Lambda's 6 MB) nor the time to read it (API Gateway's 29 s) grows with the model.
//
// Pages follow Juju's tabular sections: applications, units, machines, relations (the model on the
// first page). Within a section the entities come in the byCollection index's order, and a cursor
// is the key of the last entity sent: an entity added behind it is not sent, one added ahead is
// sent once, one removed is not sent, so no entity comes twice or in half, however the model
// changes between pages.
//
// An application's entry needs all its units (derived status, version, Scale); it reads only a
// projection of them (statuses, version, machine: SummaryUnit), in BatchGetItems run
// PARALLEL_READS at a time, and at most SUMMARY_UNITS_PER_PAGE of them per page: an application
// with more is summarized across pages, the sum so far riding in the cursor, and sent whole once
// its last unit is counted.
//
// Cost per page (R = page entities, at most MAX_PAGE_ENTITIES; S = SUMMARY_UNITS_PER_PAGE):
//   applications: R/100 index queries and BatchGets of the applications and their relations, and
//                 for their units S/1000 index queries, S/100 projected BatchGets and S/100
//                 presence BatchGets;
//   units:        per application a listing, then R/100 BatchGets of units, of their subordinates,
//                 and of presence, leases and applications for what they show;
//   machines:     R/100 BatchGets of machines and of presence, an index query per shard;
//   relations:    R/100 BatchGets, and one scope query per Dying relation (five names each).
// All BatchGets of a page go PARALLEL_READS at a time; the answer stays under STATUS_PAGE_MAX_BYTES
// because entities are measured as they are added and the page ends before one that would not fit.
import type { Application, Machine, Model, Relation, Unit } from '../../domain/entities.js';
import { invalidArgument } from '../../domain/errors.js';
import { refs, type EntityRef } from '../../domain/plan.js';
import { DEFAULT_AGENT_LOST_AFTER_SECONDS, type Presence } from '../../domain/presence.js';
import { modelBlockedByWhatIsLeft } from '../../domain/blocked-by.js';
import {
  applicationDoc,
  controllerDoc,
  emptySummary,
  machineDoc,
  modelDoc,
  relationDoc,
  summarizeUnits,
  unitDoc,
  type Context,
  type SummaryUnit,
  type UnitsSummary,
} from '../../domain/status.js';
import { MAX_PAGE_ENTITIES, STATUS_SECTIONS, type StatusPage, type StatusSection, type UnitEntry } from '../../domain/status-page.js';
import { limiter } from '../../domain/bounded.js';
import { collectionOf, collections } from '../engine/keys.js';
import { collectionCursorAfter, getEach, getProjected, listCollection, listScope } from '../engine/reads.js';
import { withoutCache, type Store } from '../engine/store.js';
import { readLeaders } from './leadership.js';
import { requireModel } from './model.js';
import { readPresence } from './presence.js';
import { decodePosition, encodePosition, type Counted, type Position } from './status-page-cursor.js';

/** What the entities of a page may take; the rest (of STATUS_PAGE_MAX_BYTES) is for the model, the cursor and the scales. */
const ENTITY_BYTES = 900_000;
/**
 * Units whose projection one page reads for its applications' summaries: at most this, and fewer
 * for a smaller page (SUMMARY_UNITS_PER_ENTITY for each entity asked), so small pages come quickly too.
 */
const SUMMARY_UNITS_PER_PAGE = 5000;
const SUMMARY_UNITS_PER_ENTITY = 5;
/** Reads of one page in flight at once. */
const PARALLEL_READS = 4;

const SUMMARY_FIELDS = ['name', 'life', 'machine', 'agentStatus', 'workloadStatus', 'workloadVersion', 'workloadVersionSince'] as const;

export interface StatusPageOptions {
  cursor?: string;
  /** Entities wanted in the page (a hint: at most MAX_PAGE_ENTITIES, and the byte budget may end it sooner). */
  limit?: number;
  controller?: string;
  agentLostAfterSeconds?: number;
}

/** What one page may still take, and what it has read with. */
interface Budget {
  entities: number;
  bytes: number;
  summaryUnits: number;
}

interface Reader {
  store: Store;
  model: Model;
  presence: Presence;
  now: Date;
  budget: Budget;
  page: StatusPage;
  /** A Dying model's: what holds it, counted as the pages go. */
  left?: NonNullable<Position['left']>;
  /** Every read of the page goes through it: at most PARALLEL_READS in flight. */
  bounded: ReturnType<typeof limiter>;
}

const chunks = <T>(items: T[], size = 100) =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, i * size + size));

/** getEach, its BatchGets in parallel within the page's bound. */
async function readEach<T>(reader: Reader, wanted: EntityRef[]): Promise<(T | undefined)[]> {
  return (await Promise.all(chunks(wanted).map((batch) => reader.bounded(() => getEach<T>(reader.store, batch))))).flat();
}

async function readPresenceOf(reader: Reader, machines: (string | undefined)[]): Promise<Record<string, string>> {
  const ids = [...new Set(machines.filter((m): m is string => m !== undefined))];
  return Object.assign({}, ...(await Promise.all(chunks(ids).map((batch) => reader.bounded(() => readPresence(reader.store, batch))))));
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** Takes an entity of `size` bytes into the page if it fits (the first always does: one entity is far below the budget). */
function fits(reader: Reader, size: number, pageHasEntities: boolean): boolean {
  if (pageHasEntities && size > reader.budget.bytes) return false;
  reader.budget.bytes -= size;
  reader.budget.entities--;
  return true;
}

const hasEntities = (page: StatusPage) =>
  Object.keys(page.applications ?? {}).length +
    (page.units?.length ?? 0) +
    Object.keys(page.machines ?? {}).length +
    (page.relations?.length ?? 0) >
  0;

const countIn = (counted: Counted, name: string): Counted => ({
  count: counted.count + 1,
  first: counted.first.length < 5 ? [...counted.first, name] : counted.first,
});

// ---------------------------------------------------------------------------------------------
// applications

/** Folds an application's units into its summary from `after`, until its end or the page's budget: the cursor to go on from, if any. */
async function summarize(
  reader: Reader,
  application: string,
  from: { after?: string; summary: UnitsSummary },
): Promise<{ summary: UnitsSummary; after?: string }> {
  const { store } = reader;
  let { summary, after } = from;
  for (;;) {
    const listed = await listCollection(store, collections.unitsOf(store.model, application), {
      limit: Math.max(1, Math.min(1000, reader.budget.summaryUnits)),
      ...(after ? { cursor: after } : {}),
    });
    const projected = await Promise.all(
      chunks(listed.items).map((batch) => reader.bounded(() => getProjected<SummaryUnit>(store, batch, SUMMARY_FIELDS))),
    );
    const units = projected.flat().filter((u): u is SummaryUnit => u !== undefined);
    const lastSeen = await readPresenceOf(
      reader,
      units.map((u) => u.machine),
    );
    summary = summarizeUnits(summary, units, { presence: { ...reader.presence, lastSeen }, now: reader.now });
    reader.budget.summaryUnits -= listed.items.length;
    if (!listed.cursor) return { summary };
    after = collectionCursorAfter(store, listed.items[listed.items.length - 1]!);
    if (reader.budget.summaryUnits <= 0) return { summary, after };
  }
}

async function applicationsSection(reader: Reader, position: Position): Promise<Position | undefined> {
  const { store, page } = reader;
  let after = position.after;
  let partial = position.partial;
  while (reader.budget.entities > 0) {
    const listed = await listCollection(store, collections.applications(store.model), {
      limit: Math.min(reader.budget.entities, 100),
      ...(after ? { cursor: after } : {}),
    });
    const apps = await readEach<Application>(reader, listed.items);
    // As many whole applications as the summary budget holds; the first one in any case.
    let planned = 0;
    let units = 0;
    while (planned < apps.length && (planned === 0 || units + (apps[planned]?.unitCount ?? 0) <= reader.budget.summaryUnits))
      units += apps[planned++]?.unitCount ?? 0;
    const taken = apps.slice(0, planned);
    const relationsOf = await readEach<Relation>(reader, [...new Set(taken.flatMap((a) => a?.relations ?? []))].map(refs.relation));
    const relations = new Map(relationsOf.filter((r): r is Relation => r !== undefined).map((r) => [r.key, r]));
    const summaries = await Promise.all(
      taken.map(async (app) => {
        if (!app) return undefined;
        const resumed = partial?.name === app.name ? { after: partial.after, summary: partial.summary } : { summary: emptySummary() };
        return summarize(reader, app.name, resumed);
      }),
    );
    partial = undefined;
    for (const [i, app] of taken.entries()) {
      const ref = listed.items[i]!;
      const summarized = summaries[i];
      if (app && summarized) {
        if (summarized.after)
          return {
            section: 'applications',
            ...(after ? { after } : {}),
            partial: { name: app.name, after: summarized.after, summary: summarized.summary },
          };
        const doc = applicationDoc(
          app,
          app.relations.flatMap((key) => relations.get(key) ?? []),
          summarized.summary,
        );
        const scale = { units: summarized.summary.units, ready: summarized.summary.ready };
        if (!fits(reader, bytes(doc) + bytes(scale) + 2 * bytes(app.name) + 8, hasEntities(page)))
          return { section: 'applications', ...(after ? { after } : {}) };
        (page.applications ??= {})[app.name] = doc;
        (page.scale ??= {})[app.name] = scale;
        if (reader.left) reader.left.applications = countIn(reader.left.applications, app.name);
      }
      after = collectionCursorAfter(store, ref);
    }
    if (planned < apps.length) return { section: 'applications', after };
    if (!listed.cursor) return undefined;
  }
  return { section: 'applications', ...(after ? { after } : {}) };
}

// ---------------------------------------------------------------------------------------------
// units

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

/**
 * The principal units from the position on, up to the page's entity budget, and where the next
 * page goes on. Subordinate applications are skipped: their units come inside their principals'.
 */
async function listUnits(reader: Reader, position: Position): Promise<{ refs: EntityRef[]; next?: Position }> {
  const { store } = reader;
  const want = reader.budget.entities;
  const found: EntityRef[] = [];
  const at = (application: string, after?: string): Position => ({ section: 'units', application, ...(after ? { after } : {}) });
  let application = position.application;
  if (application && !position.done) {
    const listed = await listCollection(store, collections.unitsOf(store.model, application), {
      limit: want,
      ...(position.after ? { cursor: position.after } : {}),
    });
    found.push(...listed.items);
    if (listed.cursor) return { refs: found, next: at(application, listed.cursor) };
  }
  for (;;) {
    if (application && found.length >= want) return { refs: found, next: { section: 'units', application, done: true } };
    // The next few principal applications' units are listed in parallel, and taken in order.
    const { apps, last } = await nextPrincipals(reader, application);
    if (!last) return { refs: found };
    const listings = await Promise.all(
      apps.map((app) =>
        reader.bounded(() => listCollection(store, collections.unitsOf(store.model, app.name), { limit: want - found.length })),
      ),
    );
    for (const [i, listed] of listings.entries()) {
      const app = apps[i]!.name;
      if (found.length >= want) return { refs: found, next: at(app) };
      const taken = listed.items.slice(0, want - found.length);
      found.push(...taken);
      if (taken.length < listed.items.length) return { refs: found, next: at(app, collectionCursorAfter(store, taken[taken.length - 1]!)) };
      if (listed.cursor) return { refs: found, next: at(app, listed.cursor) };
    }
    application = last;
  }
}

async function unitsSection(reader: Reader, position: Position): Promise<Position | undefined> {
  const { store, page } = reader;
  const listed = await listUnits(reader, position);
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
    if (!fits(reader, bytes(entry), hasEntities(page))) return positionBefore(store, position, listed.refs, unit);
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
function positionBefore(store: Store, position: Position, listed: EntityRef[], unit: Unit): Position {
  const before = listed[listed.findIndex((r) => r.kind === 'unit' && r.name === unit.name) - 1];
  const resumed = position.application === unit.application && !position.done ? position.after : undefined;
  const after = before?.kind === 'unit' && before.name.split('/')[0] === unit.application ? collectionCursorAfter(store, before) : resumed;
  return { section: 'units', application: unit.application, ...(after ? { after } : {}) };
}

// ---------------------------------------------------------------------------------------------
// machines

/**
 * Machines are listed from their shards at once and merged in the order of their ids, so a table
 * printed as the pages come is in order: each shard keeps its own position, and a page takes only
 * ids no shard can still have a smaller one of.
 */
async function machinesSection(reader: Reader, position: Position): Promise<Position | undefined> {
  const { store, page } = reader;
  const shards = collections.machineShards(store.model);
  // Per shard: after this entity (a listing cursor), from its start (''), or done (null).
  const state: (string | null)[] = position.shards ?? shards.map(() => '');
  const at = (): Position => ({ section: 'machines', shards: [...state] });
  const sortKey = (ref: EntityRef) => collectionOf(store.model, ref)?.sk ?? '';
  while (reader.budget.entities > 0) {
    const live = shards.flatMap((collection, shard) => (state[shard] === null ? [] : [{ collection, shard }]));
    if (!live.length) return undefined;
    const listings = await Promise.all(
      live.map(({ collection, shard }) =>
        reader.bounded(() =>
          listCollection(store, collection, { limit: reader.budget.entities, ...(state[shard] ? { cursor: state[shard] } : {}) }),
        ),
      ),
    );
    // Up to the smallest last id of the shards that have more: beyond it, one of them may hold a smaller id.
    const bounds = listings.flatMap((l) => (l.cursor ? [sortKey(l.items[l.items.length - 1]!)] : []));
    const bound = bounds.length ? bounds.sort()[0]! : undefined;
    const merged = listings
      .flatMap((listed, i) => listed.items.map((ref) => ({ ref, shard: live[i]!.shard })))
      .filter(({ ref }) => bound === undefined || sortKey(ref) <= bound)
      .sort((a, b) => (sortKey(a.ref) < sortKey(b.ref) ? -1 : 1))
      .slice(0, reader.budget.entities);
    const machines = await readEach<Machine>(
      reader,
      merged.map((m) => m.ref),
    );
    const lastSeen = await readPresenceOf(
      reader,
      machines.map((m) => m?.id),
    );
    const ctx = { presence: { ...reader.presence, lastSeen }, now: reader.now, charms: new Map(), leaders: {} };
    for (const [i, machine] of machines.entries()) {
      if (machine) {
        const doc = machineDoc(machine, ctx);
        if (!fits(reader, bytes(doc) + bytes(machine.id) + 2, hasEntities(page))) return at();
        (page.machines ??= {})[machine.id] = doc;
        if (reader.left) reader.left.machines = countIn(reader.left.machines, machine.id);
      }
      state[merged[i]!.shard] = collectionCursorAfter(store, merged[i]!.ref);
    }
    // A shard is done when its listing ended and all of it was taken.
    for (const [i, listed] of listings.entries()) {
      const shard = live[i]!.shard;
      const taken = merged.filter((m) => m.shard === shard).length;
      if (!listed.cursor && taken === listed.items.length) state[shard] = null;
    }
  }
  return at();
}

// ---------------------------------------------------------------------------------------------
// relations

async function relationsSection(reader: Reader, position: Position): Promise<Position | undefined> {
  const { store, page } = reader;
  let after = position.after;
  while (reader.budget.entities > 0) {
    const listed = await listCollection(store, collections.relations(store.model), {
      limit: reader.budget.entities,
      ...(after ? { cursor: after } : {}),
    });
    const relations = await readEach<Relation>(reader, listed.items);
    // A few names are enough to tell the user who to look at; the count says the rest.
    const scopes = await Promise.all(
      relations.map(async (r) =>
        r?.life === 'dying' ? (await reader.bounded(() => listScope(store, r.key, { limit: 5 }))).items.map((m) => m.unit) : [],
      ),
    );
    for (const [i, relation] of relations.entries()) {
      if (relation) {
        const doc = relationDoc(relation, scopes[i]!);
        if (!fits(reader, bytes(doc) + 1, hasEntities(page))) return { section: 'relations', ...(after ? { after } : {}) };
        (page.relations ??= []).push(doc);
      }
      after = collectionCursorAfter(store, listed.items[i]!);
    }
    if (!listed.cursor) return undefined;
  }
  return { section: 'relations', ...(after ? { after } : {}) };
}

const SECTION_READERS = {
  applications: applicationsSection,
  units: unitsSection,
  machines: machinesSection,
  relations: relationsSection,
};

/** One page of the status document, from the cursor of the previous one (none: the first). */
export async function readStatusPageDoc(given: Store, options: StatusPageOptions = {}): Promise<StatusPage> {
  // A status read touches every item of the model; none of it may evict what operations plan from.
  const store = withoutCache(given);
  if (options.limit !== undefined && (!Number.isInteger(options.limit) || options.limit < 1))
    throw invalidArgument('a status page size is a whole number of entities, at least 1');
  let position: Position | undefined = options.cursor ? decodePosition(options.cursor) : { section: 'applications' };
  const model = await requireModel(store);
  const now = store.now();
  const page: StatusPage = {};
  if (!options.cursor) {
    page.model = modelDoc(model, options.controller ?? 'local', now);
    page.controller = controllerDoc(now);
  }
  const empty = { count: 0, first: [] };
  const entities = Math.min(options.limit ?? MAX_PAGE_ENTITIES, MAX_PAGE_ENTITIES);
  const reader: Reader = {
    store,
    model,
    now,
    presence: { lastSeen: {}, lostAfterMs: (options.agentLostAfterSeconds ?? DEFAULT_AGENT_LOST_AFTER_SECONDS) * 1000 },
    budget: { entities, bytes: ENTITY_BYTES, summaryUnits: Math.min(SUMMARY_UNITS_PER_PAGE, entities * SUMMARY_UNITS_PER_ENTITY) },
    page,
    bounded: limiter(PARALLEL_READS),
    ...(model.life !== 'alive' ? { left: position.left ?? { applications: empty, machines: empty, unitsInError: empty } } : {}),
  };
  // The sections in order; one that ends with room in the page lets the next one start in it.
  while (position && reader.budget.entities > 0) {
    const section: StatusSection = position.section;
    const next: Position | undefined = await SECTION_READERS[section](reader, position);
    if (next) {
      position = next;
      break;
    }
    const following: StatusSection | undefined = STATUS_SECTIONS[STATUS_SECTIONS.indexOf(section) + 1];
    position = following ? { section: following } : undefined;
  }
  if (position) {
    page.section = position.section;
    page.cursor = encodePosition({ ...position, ...(reader.left ? { left: reader.left } : {}) });
  } else if (reader.left) page.modelBlockedBy = await blockedByOfModel(store, model, reader.left);
  return page;
}

/** A Dying model's blocked-by, from what the pages counted: the first units in error read again for their hint. */
async function blockedByOfModel(store: Store, model: Model, left: NonNullable<Position['left']>): Promise<string[]> {
  const units = (await getEach<Unit>(store, left.unitsInError.first.map(refs.unit))).filter((u): u is Unit => u !== undefined);
  return modelBlockedByWhatIsLeft(model, { ...left, unitsInError: { count: left.unitsInError.count, first: units } });
}
