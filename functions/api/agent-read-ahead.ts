// An agent request's first read. Identifying the caller reads its machine (agent-identity.ts);
// authorizing the route then reads the unit it names, and for a charm download the unit's
// application (agent-authorization.ts). Those reads depend only on the request, so they go out
// together, in one BatchGetItem: a unit's report costs one read before its transaction instead
// of two in a row, a charm download one instead of three. On AWS that is one round trip instead
// of two or three; on the local controller, less of the SDK's and DynamoDB Local's work per
// request, which is most of what a unit start costs there (bench/RESULTS.md, "Scale"). A `view`
// names what the agent's last view showed, and what a view reads of those is read with the
// machine too (shared/state/queries/machine-view.ts, viewRefs).
//
// Nothing read ahead is answered before the caller is identified and the route authorized: what
// was read is used only by those checks and by the view of the caller's own machine, the same
// items they would have read themselves, with the same consistency.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Application, Machine, Unit } from '#shared/domain/entities.js';
import type { EntityRef } from '#shared/domain/plan.js';
import { agentOperations } from '#shared/api/agent-requests.js';
import { MAX_NAME_LENGTH } from '#shared/api/fields.js';
import { viewRefs, type ReadAhead } from '#shared/state/queries/machine-view.js';
import { getEach, getItem } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { applicationOfUnit } from '#shared/domain/names.js';

const refId = (ref: EntityRef) => JSON.stringify(ref);

/** Items read for one request, by reference; a reference not among them is read when asked for. */
export class ItemsRead implements ReadAhead {
  private constructor(
    private readonly store: Store,
    private readonly items: Map<string, unknown>,
  ) {}

  /** Reads `refs` of `store` at once: one BatchGetItem, or one GetItem for a single reference. */
  static async of(store: Store, named: EntityRef[]): Promise<ItemsRead> {
    // BatchGetItem refuses a key named twice, and an agent's body may name one twice.
    const refs = [...new Map(named.map((ref) => [refId(ref), ref])).values()];
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

  /** The items of `refs` as read ahead, in order; undefined unless every one of them was. */
  allOf(refs: EntityRef[]): unknown[] | undefined {
    const ids = refs.map(refId);
    return ids.every((id) => this.items.has(id)) ? ids.map((id) => this.items.get(id)) : undefined;
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
  if (!declares.unit) return [];
  const unit = (peek(event) as { unit?: unknown } | null | undefined)?.unit;
  if (typeof unit !== 'string' || unit.length === 0 || unit.length > MAX_NAME_LENGTH) return [];
  const application = applicationOfUnit(unit);
  return [{ kind: 'unit', name: unit }, ...(declares.charm && application ? [{ kind: 'application', name: application } as const] : [])];
}

/** What a view reads of the units and relations the agent names as its last view's (none if it names none). */
export function viewReadAheadRefs(event: APIGatewayProxyEventV2): EntityRef[] {
  const request = agentOperations.view.request.safeParse(peek(event));
  const known = request.success ? request.data.known : undefined;
  return known ? viewRefs(known.units, known.relations) : [];
}

/** The body as JSON, if it is small and JSON; undefined otherwise. */
function peek(event: APIGatewayProxyEventV2): unknown {
  if (!event.body || event.body.length > MAX_PEEK_BYTES) return undefined;
  try {
    return JSON.parse(event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body);
  } catch {
    return undefined;
  }
}
