// An agent request's first read. Identifying the caller reads its machine (agent-identity.ts);
// authorizing the route then reads the unit it names, and for a charm download the unit's
// application (agent-authorization.ts). Those reads depend only on the request, so they go out
// together, in one BatchGetItem: a unit's report costs one read before its transaction instead
// of two in a row, a charm download one instead of three. On AWS that is one round trip instead
// of two or three; on the local controller, less of the SDK's and DynamoDB Local's work per
// request, which is most of what a unit start costs there (bench/RESULTS.md, "Scale").
//
// Nothing read ahead is answered before the caller is identified and the route authorized: what
// was read is used only by those checks, the same items they would have read themselves, with
// the same consistency.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Application, Machine, Unit } from '#shared/domain/entities.js';
import type { EntityRef } from '#shared/domain/plan.js';
import { MAX_NAME_LENGTH } from '#shared/api/fields.js';
import { getEach, getItem } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';

const refId = (ref: EntityRef) => JSON.stringify(ref);

/** Items read for one request, by reference; a reference not among them is read when asked for. */
export class ItemsRead {
  private constructor(
    private readonly store: Store,
    private readonly items: Map<string, unknown>,
  ) {}

  /** Reads `refs` of `store` at once: one BatchGetItem, or one GetItem for a single reference. */
  static async of(store: Store, refs: EntityRef[]): Promise<ItemsRead> {
    const values = refs.length === 1 ? [await getItem(store, refs[0]!)] : await getEach(store, refs);
    return new ItemsRead(store, new Map(refs.map((ref, i) => [refId(ref), values[i]])));
  }

  /** Nothing read ahead: every item is read when asked for. */
  static none(store: Store): ItemsRead {
    return new ItemsRead(store, new Map());
  }

  /** The item as read ahead (undefined: it does not exist), or read now if it was not. */
  async get<T>(ref: EntityRef): Promise<T | undefined> {
    const id = refId(ref);
    if (this.items.has(id)) return this.items.get(id) as T | undefined;
    return getItem<T>(this.store, ref);
  }

  machine = (id: string) => this.get<Machine>({ kind: 'machine', id });
  unit = (name: string) => this.get<Unit>({ kind: 'unit', name });
  application = (name: string) => this.get<Application>({ kind: 'application', name });
}

/** Bodies larger than this are not peeked at: a report carrying many log lines reads its unit later. */
const MAX_PEEK_BYTES = 64 * 1024;

/**
 * What to read with the caller's machine: the unit the body names under `unit` (when the route
 * authorizes one) and, when the route checks a charm, the application that unit's name says it
 * belongs to. A peek at the raw body: the request is parsed and checked by its schema after, and
 * anything odd here only means nothing extra is read ahead.
 */
export function readAheadRefs(event: APIGatewayProxyEventV2, declares: { unit: boolean; charm: boolean }): EntityRef[] {
  if (!declares.unit || !event.body || event.body.length > MAX_PEEK_BYTES) return [];
  let unit: unknown;
  try {
    const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
    unit = (JSON.parse(text) as { unit?: unknown } | null)?.unit;
  } catch {
    return [];
  }
  if (typeof unit !== 'string' || unit.length === 0 || unit.length > MAX_NAME_LENGTH) return [];
  const application = unit.slice(0, unit.lastIndexOf('/'));
  return [{ kind: 'unit', name: unit }, ...(declares.charm && application ? [{ kind: 'application', name: application } as const] : [])];
}
