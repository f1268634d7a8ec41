// Which model a stream record concerns. One table holds every model of the controller, so one
// stream carries them all; each record's partition key starts with its model's key
// (shared/state/engine/keys.ts), and the consumers act on it through that model's store.
import type { DynamoDBRecord } from 'aws-lambda';
import { ATTR, modelOfKey } from '#shared/state/engine/keys.js';
import { storeForModel, type Store } from '#shared/state/engine/store.js';

/** The record's model key; undefined for the controller's own items (model names) and for items not drover's. */
export function modelOfRecord(record: DynamoDBRecord): string | undefined {
  const pk = record.dynamodb?.Keys?.[ATTR.pk]?.S;
  return pk === undefined ? undefined : modelOfKey(pk);
}

/**
 * What a batch keeps per model (the hints already sent, the cleanups already run): made on first
 * use, so a batch touching one model builds one. Machine ids and cleanup ids repeat across models,
 * so nothing a batch remembers may be shared between two.
 */
export function perModel<T>(store: Store, make: (store: Store) => T): (model: string) => T {
  const made = new Map<string, T>();
  return (model) => {
    let value = made.get(model);
    if (value === undefined) made.set(model, (value = make(storeForModel(store, model))));
    return value;
  };
}
