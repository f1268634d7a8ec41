// What every section of a status page reads with (shared/state/queries/status-pages.ts): the
// page's budget of entities, bytes and summarized units, and its reads, at most PARALLEL_READS
// in flight.
import type { Model } from '../../../domain/entities.js';
import type { EntityRef } from '../../../domain/plan.js';
import type { Presence } from '../../../domain/presence.js';
import type { StatusPage } from '../../../domain/status-page.js';
import { limiter } from '../../../domain/bounded.js';
import { getEach } from '../../engine/reads.js';
import type { Store } from '../../engine/store.js';
import { readPresence } from '../presence.js';
import type { Counted, Position } from '../status-page-cursor.js';

/** Reads of one page in flight at once. */
export const PARALLEL_READS = 4;

/** What one page may still take, and what it has read with. */
export interface Budget {
  entities: number;
  bytes: number;
  summaryUnits: number;
}

export interface Reader {
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

export const chunks = <T>(items: T[], size = 100) =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, i * size + size));

/** getEach, its BatchGets in parallel within the page's bound. */
export async function readEach<T>(reader: Reader, wanted: EntityRef[]): Promise<(T | undefined)[]> {
  return (await Promise.all(chunks(wanted).map((batch) => reader.bounded(() => getEach<T>(reader.store, batch))))).flat();
}

export async function readPresenceOf(reader: Reader, machines: (string | undefined)[]): Promise<Record<string, string>> {
  const ids = [...new Set(machines.filter((m): m is string => m !== undefined))];
  return Object.assign({}, ...(await Promise.all(chunks(ids).map((batch) => reader.bounded(() => readPresence(reader.store, batch))))));
}

export const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** Takes an entity of `size` bytes into the page if it fits (the first always does: one entity is far below the budget). */
export function fits(reader: Reader, size: number, pageHasEntities: boolean): boolean {
  if (pageHasEntities && size > reader.budget.bytes) return false;
  reader.budget.bytes -= size;
  reader.budget.entities--;
  return true;
}

export const hasEntities = (page: StatusPage) =>
  Object.keys(page.applications ?? {}).length +
    (page.units?.length ?? 0) +
    Object.keys(page.machines ?? {}).length +
    (page.relations?.length ?? 0) >
  0;

export const countIn = (counted: Counted, name: string): Counted => ({
  count: counted.count + 1,
  first: counted.first.length < 5 ? [...counted.first, name] : counted.first,
});
