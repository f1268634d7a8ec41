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
// All BatchGets of a page go PARALLEL_READS at a time (status-pages/page-reader.ts); the answer stays under STATUS_PAGE_MAX_BYTES
// because entities are measured as they are added and the page ends before one that would not fit.
import type { Model, Unit } from '../../domain/entities.js';
import { invalidArgument } from '../../domain/errors.js';
import { refs } from '../../domain/plan.js';
import { DEFAULT_AGENT_LOST_AFTER_SECONDS } from '../../domain/presence.js';
import { modelBlockedByWhatIsLeft } from '../../domain/blocked-by.js';
import { controllerDoc, modelDoc } from '../../domain/status.js';
import { MAX_PAGE_ENTITIES, STATUS_SECTIONS, type StatusPage, type StatusSection } from '../../domain/status-page.js';
import { limiter } from '../../domain/bounded.js';
import { getEach } from '../engine/reads.js';
import { withoutCache, type Store } from '../engine/store.js';
import { requireModel } from './model.js';
import { decodePosition, encodePosition, type Position } from './status-page-cursor.js';
import { applicationsSection } from './status-pages/applications.js';
import { machinesSection } from './status-pages/machines.js';
import { PARALLEL_READS, type Reader } from './status-pages/page-reader.js';
import { relationsSection } from './status-pages/relations.js';
import { unitsSection } from './status-pages/units.js';

/** What the entities of a page may take; the rest (of STATUS_PAGE_MAX_BYTES) is for the model, the cursor and the scales. */
const ENTITY_BYTES = 900_000;
/**
 * Units whose projection one page reads for its applications' summaries: at most this, and fewer
 * for a smaller page (SUMMARY_UNITS_PER_ENTITY for each entity asked), so small pages come quickly too.
 */
const SUMMARY_UNITS_PER_PAGE = 5000;
const SUMMARY_UNITS_PER_ENTITY = 5;

export interface StatusPageOptions {
  cursor?: string;
  /** Entities wanted in the page (a hint: at most MAX_PAGE_ENTITIES, and the byte budget may end it sooner). */
  limit?: number;
  controller?: string;
  agentLostAfterSeconds?: number;
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
