// Stream records for handler tests, built from real items: read an entity's item before and
// after a change and wrap both images the way DynamoDB Streams delivers them to Lambda.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { EntityRef } from '#shared/domain/plan.js';
import { keyOf } from '#shared/state/engine/keys.js';
import type { Store } from '#shared/state/engine/store.js';

type Item = Record<string, unknown>;
type Image = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;

/** The raw item (internal attributes and all), as the stream would carry it; undefined if absent. */
export async function readItem(store: Store, ref: EntityRef): Promise<Item | undefined> {
  const { Item } = await store.doc.send(new GetCommand({ TableName: store.table, Key: keyOf(store.model, ref), ConsistentRead: true }));
  return Item;
}

let sequence = 1000;

const image = (item: Item) => marshall(item, { removeUndefinedValues: true }) as unknown as Image;

export function streamRecord(change: { oldItem?: Item; newItem?: Item; sequenceNumber?: string }): DynamoDBRecord {
  const sequenceNumber = change.sequenceNumber ?? String(++sequence);
  const eventName = !change.oldItem ? 'INSERT' : !change.newItem ? 'REMOVE' : 'MODIFY';
  const item = change.newItem ?? change.oldItem;
  return {
    eventID: `event-${sequenceNumber}`,
    eventName,
    eventSource: 'aws:dynamodb',
    awsRegion: 'local',
    dynamodb: {
      ...(item ? { Keys: image({ pk: item.pk, sk: item.sk }) } : {}),
      ...(change.oldItem ? { OldImage: image(change.oldItem) } : {}),
      ...(change.newItem ? { NewImage: image(change.newItem) } : {}),
      SequenceNumber: sequenceNumber,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

/** INSERT records for entities as they are now. */
export async function insertRecords(store: Store, refs: EntityRef[]): Promise<DynamoDBRecord[]> {
  const items = await Promise.all(refs.map((r) => readItem(store, r)));
  return items.map((newItem, i) => {
    if (!newItem) throw new Error(`no item for ${JSON.stringify(refs[i])}`);
    return streamRecord({ newItem });
  });
}

/** The MODIFY record of whatever `change` does to one entity. */
export async function modifyRecord(store: Store, ref: EntityRef, change: () => Promise<unknown>): Promise<DynamoDBRecord> {
  const oldItem = await readItem(store, ref);
  await change();
  const newItem = await readItem(store, ref);
  return streamRecord({ ...(oldItem ? { oldItem } : {}), ...(newItem ? { newItem } : {}) });
}

export const streamEvent = (records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });
