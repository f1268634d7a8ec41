// The baseline: the operation's own write requests, replayed raw on fresh keys in the same table.
//
// Each action is the operation's, unchanged (same expressions, conditions and values), but aimed
// at a copy: a Put puts a copy of its item under a fresh key; an Update, ConditionCheck or Delete
// goes to a copy, made beforehand and untimed, of the item it targeted as it was just before the
// operation wrote it — so its condition holds and it writes the same attributes, index entries
// included. What the replay leaves out is exactly the operation's own overhead: its reads, its
// planning, and the SDK calls they take.
//
// The copies live under the benchmark's own keys (`bench-raw#…`), in index partitions of their
// own, outside any model, so no operation lists them.
import { BatchWriteCommand, DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ATTR } from '#shared/state/engine/keys.js';
import type { Store } from '#shared/state/engine/store.js';
import { keyId, type Item, type SentRequest } from './request-log.js';

type Params = Record<string, any>;
/** `before`: the targeted item as it was; absent only for an update that created its item. */
type Action = { kind: 'put'; params: Params } | { kind: 'update' | 'check' | 'delete'; params: Params; before?: Item };

export type WriteShape = { transaction: Action[] } | { single: Action } | { batch: Action[] };

function targeted(kind: 'update' | 'check' | 'delete', params: Params, request: SentRequest): Action {
  const before = request.before?.get(keyId(params.Key));
  if (!request.before) throw new Error(`no snapshot of ${keyId(params.Key)}: capture the operation with snapshots`);
  // An update of an absent item creates it (a sequence's first reservation): replayed on a fresh key.
  if (!before && kind !== 'update') throw new Error(`${kind} of ${keyId(params.Key)}, which did not exist`);
  return { kind, params, ...(before ? { before } : {}) };
}

/** The write requests among `requests` (captured with snapshots), as shapes the raw writer replays. */
export function writeShapes(requests: SentRequest[]): WriteShape[] {
  const shapes: WriteShape[] = [];
  for (const request of requests) {
    const { command, input } = request;
    switch (command) {
      case 'TransactWriteItemsCommand':
        shapes.push({
          transaction: (input.TransactItems as Params[]).map((i): Action => {
            if (i.Put) return { kind: 'put', params: i.Put };
            if (i.Update) return targeted('update', i.Update, request);
            if (i.ConditionCheck) return targeted('check', i.ConditionCheck, request);
            return targeted('delete', i.Delete, request);
          }),
        });
        break;
      case 'PutItemCommand':
        shapes.push({ single: { kind: 'put', params: input } });
        break;
      case 'UpdateItemCommand':
        shapes.push({ single: targeted('update', input, request) });
        break;
      case 'DeleteItemCommand':
        shapes.push({ single: targeted('delete', input, request) });
        break;
      case 'BatchWriteItemCommand':
        shapes.push({
          batch: Object.values(input.RequestItems as Record<string, Params[]>)
            .flat()
            .map((r) => (r.PutRequest ? { kind: 'put', params: r.PutRequest } : targeted('delete', r.DeleteRequest, request))),
        });
        break;
    }
  }
  return shapes;
}

const actionsOf = (shape: WriteShape): Action[] =>
  'transaction' in shape ? shape.transaction : 'batch' in shape ? shape.batch : [shape.single];

const KIND_NAMES = { put: 'Put', update: 'Update', check: 'ConditionCheck', delete: 'Delete' } as const;

/** The number of actions of each kind, e.g. "3 Put, 2 Update, 1 ConditionCheck". */
export function describeShape(shapes: WriteShape[]): string {
  const counts = new Map<string, number>();
  for (const { kind } of shapes.flatMap(actionsOf)) counts.set(KIND_NAMES[kind], (counts.get(KIND_NAMES[kind]) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
}

export class RawWriter {
  private serial = 0;
  /** For each targeting action, the copies prepared for its replays, used one per replay. */
  private readonly targets = new Map<Action, Item[]>();

  constructor(
    private readonly store: Store,
    private readonly name: string,
  ) {}

  /** A copy of `item` under a fresh key; its index entries move to the benchmark's partitions. */
  private copy(item: Item): Item {
    const n = this.serial++;
    const copy: Item = { ...item, [ATTR.pk]: `bench-raw#${this.name}#${n}` };
    for (const attribute of [ATTR.collectionPk, ATTR.stuckPk]) {
      if (copy[attribute] !== undefined) copy[attribute] = `bench-raw#${String(copy[attribute])}`;
    }
    if (copy[ATTR.collectionSk] !== undefined) copy[ATTR.collectionSk] = `${String(copy[ATTR.collectionSk])}#${n}`;
    return copy;
  }

  /** Creates, untimed, the copies `times` replays of `shapes` will update, check or delete. */
  async prepare(shapes: WriteShape[], times: number): Promise<void> {
    const created: Item[] = [];
    for (const action of shapes.flatMap(actionsOf)) {
      if (action.kind === 'put' || !action.before) continue;
      const before = action.before;
      const copies = Array.from({ length: times }, () => this.copy(before));
      this.targets.set(action, [...(this.targets.get(action) ?? []), ...copies]);
      created.push(...copies);
    }
    for (let i = 0; i < created.length; i += 25) {
      let requests: Params[] = created.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
      while (requests.length) {
        const out = await this.store.doc.send(new BatchWriteCommand({ RequestItems: { [this.store.table]: requests as any } }));
        requests = (out.UnprocessedItems?.[this.store.table] ?? []) as Params[];
      }
    }
  }

  private keyFor(action: Action): Item {
    if (action.kind !== 'put' && !action.before) {
      const fresh = this.copy(action.params.Key);
      return { [ATTR.pk]: fresh[ATTR.pk], [ATTR.sk]: fresh[ATTR.sk] };
    }
    const target = this.targets.get(action)?.shift();
    if (!target) throw new Error('raw writer ran out of prepared copies');
    return { [ATTR.pk]: target[ATTR.pk], [ATTR.sk]: target[ATTR.sk] };
  }

  /** The action's parameters, aimed at a fresh copy. */
  private params(action: Action): Params {
    const TableName = this.store.table;
    return action.kind === 'put'
      ? { ...action.params, TableName, Item: this.copy(action.params.Item) }
      : { ...action.params, TableName, Key: this.keyFor(action) };
  }

  /** Sends the raw equivalent of one recorded write request. */
  async run(shape: WriteShape): Promise<void> {
    const { doc } = this.store;
    if ('transaction' in shape) {
      const TransactItems = shape.transaction.map((a) => ({ [KIND_NAMES[a.kind]]: this.params(a) }));
      await doc.send(new TransactWriteCommand({ TransactItems: TransactItems as any }));
    } else if ('batch' in shape) {
      const requests = shape.batch.map((a) =>
        a.kind === 'put' ? { PutRequest: { Item: this.params(a).Item } } : { DeleteRequest: { Key: this.keyFor(a) } },
      );
      await doc.send(new BatchWriteCommand({ RequestItems: { [this.store.table]: requests } }));
    } else {
      const { single } = shape;
      const params = this.params(single) as any;
      if (single.kind === 'put') await doc.send(new PutCommand(params));
      else if (single.kind === 'update') await doc.send(new UpdateCommand(params));
      else if (single.kind === 'delete') await doc.send(new DeleteCommand(params));
      else throw new Error('a ConditionCheck is only part of a transaction');
    }
  }

  async runAll(shapes: WriteShape[]): Promise<void> {
    for (const shape of shapes) await this.run(shape);
  }
}
