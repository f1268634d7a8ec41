import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { machineIdOf, machinesOf } from '../../functions/provisioner/machine-records.js';
import { ATTR } from '../../shared/state/engine/keys.js';

const record = (pk: string, kind: string, id: string, seq: string, image: 'NewImage' | 'OldImage' = 'NewImage') => ({
  eventName: image === 'NewImage' ? ('MODIFY' as const) : ('REMOVE' as const),
  dynamodb: {
    Keys: marshall({ pk, sk: 'ITEM' }) as never,
    [image]: marshall({ pk, sk: 'ITEM', [ATTR.kind]: kind, id }) as never,
    SequenceNumber: seq,
  },
});

describe('machinesOf', () => {
  it("names the batch's machines once each, from new or old images, for this model only", () => {
    const records: DynamoDBRecord[] = [
      record('default#MACHINE#1', 'machine', '1', '1'),
      record('default#UNIT#wp/0', 'unit', 'wp/0', '2'),
      record('default#MACHINE#2', 'machine', '2', '3', 'OldImage'),
      record('other#MACHINE#1', 'machine', '1', '4'),
      record('default#MACHINE#1', 'machine', '1', '5'),
      { eventName: 'MODIFY', dynamodb: { SequenceNumber: '6' } },
    ];
    expect(machinesOf(records, 'default')).toEqual(['1', '2']);
    expect(records.map((r) => machineIdOf(r, 'default'))).toEqual(['1', undefined, '2', undefined, '1', undefined]);
  });
});
