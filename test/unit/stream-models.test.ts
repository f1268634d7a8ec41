import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { modelOfRecord, perModel } from '../../functions/stream-models.js';
import { collectionOf, keyOf, modelOfKey } from '#shared/state/engine/keys.js';
import { createStore } from '#shared/state/engine/store.js';

const UUID = '5d2c4a8e-0d3b-4f7e-9c1a-2b3c4d5e6f70';

describe("an item key's model", () => {
  it('is the part of the partition key before the first #, for every kind of item of a model', () => {
    for (const model of ['default', UUID]) {
      expect(modelOfKey(keyOf(model, { kind: 'machine', id: '0' }).pk)).toBe(model);
      expect(modelOfKey(keyOf(model, { kind: 'unit', name: 'wp/0' }).pk)).toBe(model);
      expect(modelOfKey(keyOf(model, { kind: 'model' }).pk)).toBe(model);
      expect(modelOfKey(keyOf(model, { kind: 'scope', relation: 'wp:db mysql:db', unit: 'wp/0' }).pk)).toBe(model);
      expect(modelOfKey(keyOf(model, { kind: 'statusLog', entity: 'unit-wp-0', at: '2026', type: 'workload' }).pk)).toBe(model);
    }
  });

  it("is no model's for the controller's own items (model names) and for keys drover did not write", () => {
    expect(modelOfKey(keyOf(UUID, { kind: 'modelName', name: 'prod' }).pk)).toBeUndefined();
    expect(modelOfKey(collectionOf(UUID, { kind: 'modelName', name: 'prod' })!.pk)).toBeUndefined();
    expect(modelOfKey('no-separator')).toBeUndefined();
    expect(modelOfKey('#leading')).toBeUndefined();
  });

  it("is read from a stream record's keys", () => {
    const record = (pk: string): DynamoDBRecord => ({ dynamodb: { Keys: marshall({ pk, sk: 'ITEM' }) as never } });
    expect(modelOfRecord(record(`${UUID}#MACHINE#0`))).toBe(UUID);
    expect(modelOfRecord(record('CONTROLLER#MODEL#prod'))).toBeUndefined();
    expect(modelOfRecord({ dynamodb: {} })).toBeUndefined();
  });
});

describe("a batch's memory per model", () => {
  it("is made once per model, over that model's store", () => {
    const store = createStore({ table: 't', endpoint: 'http://127.0.0.1:1', cache: false });
    const forModel = perModel(store, (s) => ({ model: s.model, seen: new Set<string>() }));
    forModel(UUID).seen.add('0');
    expect(forModel(UUID).seen.has('0')).toBe(true);
    expect(forModel('default').seen.has('0')).toBe(false);
    expect(forModel('default').model).toBe('default');
    expect(forModel(UUID).model).toBe(UUID);
  });
});
