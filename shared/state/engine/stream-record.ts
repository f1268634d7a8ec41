// A DynamoDB stream record back to entities. The table streams NEW_AND_OLD_IMAGES (table.ts), so
// a consumer sees what an item was and what it became: INSERT has only the new image, REMOVE
// only the old one. The item's `kind` attribute names the entity; it is not part of the entity
// (codec.ts strips it), so it is returned beside the images.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { fromItem } from './codec.js';
import { ATTR } from './keys.js';

export interface StreamImages {
  /** The item's kind attribute, if it has one (a record without it is not drover's). */
  kind?: string;
  oldImage?: Record<string, unknown>;
  newImage?: Record<string, unknown>;
}

type Image = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;

function decode(image: Image | undefined): { kind?: string; value: Record<string, unknown> } | undefined {
  if (!image) return undefined;
  // Lambda's stream AttributeValue and the SDK's differ only in how binaries are typed; drover
  // stores none.
  const item = unmarshall(image as unknown as Record<string, AttributeValue>);
  const kind = item[ATTR.kind];
  return { ...(typeof kind === 'string' ? { kind } : {}), value: typeof kind === 'string' ? fromItem(item) : item };
}

export function imagesOf(record: DynamoDBRecord): StreamImages {
  const oldOne = decode(record.dynamodb?.OldImage);
  const newOne = decode(record.dynamodb?.NewImage);
  const kind = newOne?.kind ?? oldOne?.kind;
  return {
    ...(kind !== undefined ? { kind } : {}),
    ...(oldOne ? { oldImage: oldOne.value } : {}),
    ...(newOne ? { newImage: newOne.value } : {}),
  };
}
