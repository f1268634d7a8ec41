// The status read model in one answer: the whole model's document (for clients older than paged
// status, up to ONE_SHOT_MAX_ENTITIES; `drover status` reads a page at a time through
// status-pages.ts), or what status selectors can show (status-selection.ts). The whole model is read
// in pages of the byCollection index in a fixed order (applications, relations, machines, then each
// application's units in number order, unit-listing.ts), its items fetched in batches.
import type { Application, Machine, Relation, Unit } from '../../domain/entities.js';
import type { EntityRef } from '../../domain/plan.js';
import { DEFAULT_AGENT_LOST_AFTER_SECONDS } from '../../domain/presence.js';
import { DroverError } from '../../domain/errors.js';
import type { StatusDoc } from '../../domain/status-document.js';
import { buildStatus, type StatusSnapshot } from '../../domain/status.js';
import { collections } from '../engine/keys.js';
import { requireModel } from './model.js';
import { readLeaders } from './leadership.js';
import { readPresence } from './presence.js';
import { getEach, getMany, listAll, listCollection } from '../engine/reads.js';
import { listScope } from '../engine/scope-listing.js';
import { listUnits, type UnitLayout } from '../engine/unit-listing.js';
import { readSelectedContents, type StatusSelection } from './status-selection.js';
import { withoutCache, type Store } from '../engine/store.js';

export interface StatusPage {
  applications: Application[];
  relations: Relation[];
  machines: Machine[];
  units: Unit[];
  /** When the agents of this page's machines were last seen (one batch read per page of machines). */
  presence: Record<string, string>;
  /** Pass back for the next page; absent on the last. */
  cursor?: string;
}

interface Position {
  collection: number;
  inner?: string;
}

const encode = (p: Position) => Buffer.from(JSON.stringify(p)).toString('base64url');
const decode = (c?: string): Position => (c ? (JSON.parse(Buffer.from(c, 'base64url').toString()) as Position) : { collection: 0 });

/** An index partition, or an application whose units are listed in number order across its layout. */
type Source = string | UnitLayout;

async function collectionOrder(store: Store): Promise<Source[]> {
  const apps = await getMany<Application>(store, await listAll(store, collections.applications(store.model)));
  return [
    collections.applications(store.model),
    collections.relations(store.model),
    ...collections.machineShards(store.model),
    ...apps.sort((a, b) => (a.name < b.name ? -1 : 1)),
  ];
}

const listSource = (store: Store, source: Source, options: { limit: number; cursor?: string }) =>
  typeof source === 'string' ? listCollection(store, source, options) : listUnits(store, source, options);

export async function readStatusPage(store: Store, options: { cursor?: string; limit?: number } = {}): Promise<StatusPage> {
  const limit = options.limit ?? 500;
  const order = await collectionOrder(store);
  let position = decode(options.cursor);
  const refs: EntityRef[] = [];
  while (refs.length < limit && position.collection < order.length) {
    const page = await listSource(store, order[position.collection]!, {
      limit: limit - refs.length,
      ...(position.inner ? { cursor: position.inner } : {}),
    });
    refs.push(...page.items);
    position = page.cursor ? { collection: position.collection, inner: page.cursor } : { collection: position.collection + 1 };
  }
  const items = await getEach<never>(store, refs);
  // Items deleted since they were listed come back undefined and are skipped.
  const of = <T>(kind: EntityRef['kind']) => items.filter((item, i) => item !== undefined && refs[i]?.kind === kind) as T[];
  const machines = of<Machine>('machine');
  const page: StatusPage = {
    applications: of<Application>('application'),
    relations: of<Relation>('relation'),
    machines,
    units: of<Unit>('unit'),
    presence: machines.length
      ? await readPresence(
          store,
          machines.map((m) => m.id),
        )
      : {},
  };
  if (position.collection < order.length) page.cursor = encode(position);
  return page;
}

export interface StatusOptions {
  controller?: string;
  /** How long an agent may be silent before it shows as lost/down. */
  agentLostAfterSeconds?: number;
  /** Only what these exact names can show (status-selection.ts); absent: the whole model. */
  select?: StatusSelection;
  /** Refuse a whole model of more entities than this (its document would not fit one response). */
  maxEntities?: number;
}

/**
 * The most entities a one-shot whole-model status answers, for clients older than paged status:
 * at about 270 bytes an entity (bench/RESULTS.md, "Status selectors") that is under 1.5 MB, and
 * about 5 s of reads, well inside Lambda's 6 MB response and API Gateway's 29 s.
 */
export const ONE_SHOT_MAX_ENTITIES = 5000;

const tooBigForOneResponse = (max: number) =>
  new DroverError(
    'not-supported',
    `this model is too big for its status in one response (more than ${max} applications, units, machines and relations): upgrade drover, whose status reads it a page at a time`,
  );

/** Reads every page (or only what a selection can show), and a few of the scope members that hold each Dying relation. */
export async function readStatusSnapshot(given: Store, options: StatusOptions = {}): Promise<StatusSnapshot> {
  // A status read touches every item of the model; none of it may evict what operations plan from.
  const store = withoutCache(given);
  const model = await requireModel(store);
  const snapshot: StatusSnapshot = {
    model,
    applications: [],
    units: [],
    machines: [],
    relations: [],
    scopes: {},
    presence: { lastSeen: {}, lostAfterMs: (options.agentLostAfterSeconds ?? DEFAULT_AGENT_LOST_AFTER_SECONDS) * 1000 },
    controller: options.controller ?? 'local',
  };
  if (options.select) {
    Object.assign(snapshot, await readSelectedContents(store, options.select));
    snapshot.presence.lastSeen = snapshot.machines.length
      ? await readPresence(
          store,
          snapshot.machines.map((m) => m.id),
        )
      : {};
  } else {
    let cursor: string | undefined;
    let entities = 0;
    do {
      const page = await readStatusPage(store, cursor ? { cursor } : {});
      entities += page.applications.length + page.relations.length + page.machines.length + page.units.length;
      if (options.maxEntities !== undefined && entities > options.maxEntities) throw tooBigForOneResponse(options.maxEntities);
      snapshot.applications.push(...page.applications);
      snapshot.relations.push(...page.relations);
      snapshot.machines.push(...page.machines);
      snapshot.units.push(...page.units);
      Object.assign(snapshot.presence.lastSeen, page.presence);
      cursor = page.cursor;
    } while (cursor);
  }
  snapshot.leaders = await readLeaders(
    store,
    snapshot.applications.map((a) => a.name),
  );
  for (const relation of snapshot.relations.filter((r) => r.life === 'dying')) {
    // A few names are enough to tell the user who to look at; the count says the rest.
    snapshot.scopes[relation.key] = (await listScope(store, relation, { limit: 5 })).items.map((m) => m.unit);
  }
  return snapshot;
}

/** The status document; presence is computed at the store's now, as Juju computes it at status time. */
export async function readStatus(store: Store, options: StatusOptions = {}): Promise<StatusDoc> {
  return buildStatus(await readStatusSnapshot(store, options), store.now());
}
