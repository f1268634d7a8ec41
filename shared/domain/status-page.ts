// The status document a page at a time, as the API sends it when asked with a cursor
// (shared/state/queries/status-pages.ts reads it; docs/architecture.md, "Status, a page at a
// time"). Pages come in the order of Juju's tabular sections: the model (first page), then the
// applications, their units, the machines and the relations, so a client can print each section as
// it arrives. assembleStatus puts the pages together into the very document a one-shot read builds
// (shared/domain/status.ts): same keys, same order.
import {
  applicationWithUnits,
  type ApplicationDoc,
  type MachineDoc,
  type RelationDoc,
  type StatusDoc,
  type UnitDoc,
} from './status-document.js';
import { compareNatural, compareText } from './natural-order.js';

/** No page's JSON is larger, whatever the model (test/integration/status-pages.test.ts checks it). */
export const STATUS_PAGE_MAX_BYTES = 1_000_000;

/**
 * Entities per page at most (and the page size clients ask for). Entries measure about 290 bytes
 * an entity on average (units with their machines; bench/RESULTS.md, "Status selectors"): 1,000
 * of them is about 300 KB. When messages are long, the byte budget ends a page sooner.
 */
export const MAX_PAGE_ENTITIES = 1000;

export const STATUS_SECTIONS = ['applications', 'units', 'machines', 'relations'] as const;
export type StatusSection = (typeof STATUS_SECTIONS)[number];

/** A principal unit, its subordinates inside it, as in its application's `units`. */
export interface UnitEntry {
  application: string;
  name: string;
  unit: UnitDoc;
}

export interface StatusPage {
  /** The first page's: the model, and when the status was read. */
  model?: StatusDoc['model'];
  controller?: StatusDoc['controller'];
  /**
   * The section the next page goes on with: every section before it is complete (a page may hold
   * the end of one section and the start of the next). Absent on the last page.
   */
  section?: StatusSection;
  /** Each application's entry without its units (they come in the units section). */
  applications?: Record<string, ApplicationDoc>;
  /** The tabular Scale column of each application of this page: its units, and how many are ready. */
  scale?: Record<string, { units: number; ready: number }>;
  units?: UnitEntry[];
  machines?: Record<string, MachineDoc>;
  relations?: RelationDoc[];
  /** The last page's, for a Dying model: what still holds it (the model's `blocked-by`). */
  modelBlockedBy?: string[];
  /** Pass back for the next page; absent on the last. */
  cursor?: string;
}

const byNumber = compareNatural;

/** The whole document from all its pages, in order. */
export function assembleStatus(pages: StatusPage[]): StatusDoc {
  const first = pages[0];
  if (!first?.model) throw new Error('the first page of a status has the model');
  const applications: Record<string, ApplicationDoc> = {};
  const units = new Map<string, Record<string, UnitDoc>>();
  const machines: Record<string, MachineDoc> = {};
  const relations: RelationDoc[] = [];
  let blockedBy: string[] | undefined;
  for (const page of pages) {
    Object.assign(applications, page.applications);
    for (const entry of page.units ?? []) {
      const mine = units.get(entry.application) ?? {};
      mine[entry.name] = entry.unit;
      units.set(entry.application, mine);
    }
    Object.assign(machines, page.machines);
    relations.push(...(page.relations ?? []));
    blockedBy = page.modelBlockedBy ?? blockedBy;
  }
  const sortedApplications: Record<string, ApplicationDoc> = {};
  for (const name of Object.keys(applications).sort(compareText))
    sortedApplications[name] = applicationWithUnits(applications[name]!, units.get(name) ?? {});
  return {
    model: { ...first.model, ...(blockedBy?.length ? { 'blocked-by': blockedBy } : {}) },
    machines: Object.fromEntries(
      Object.keys(machines)
        .sort(byNumber)
        .map((id) => [id, machines[id]!]),
    ),
    applications: sortedApplications,
    relations: relations.sort((a, b) => a.id - b.id),
    storage: {},
    ...(first.controller ? { controller: first.controller } : {}),
  };
}
