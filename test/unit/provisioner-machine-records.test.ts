import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { machineOf, machinesOf } from '../../functions/provisioner/machine-records.js';
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
  it("names the batch's machines once each, from new or old images, each with its model", () => {
    const records: DynamoDBRecord[] = [
      record('default#MACHINE#1', 'machine', '1', '1'),
      record('default#UNIT#wp/0', 'unit', 'wp/0', '2'),
      record('default#MACHINE#2', 'machine', '2', '3', 'OldImage'),
      record('other#MACHINE#1', 'machine', '1', '4'),
      record('default#MACHINE#1', 'machine', '1', '5'),
      { eventName: 'MODIFY', dynamodb: { SequenceNumber: '6' } },
      // Not a machine item of any model: its key is not the one its id makes, or is the controller's.
      record('default#MACHINE#3', 'machine', '4', '7'),
      record('CONTROLLER#MODEL#prod', 'machine', '1', '8'),
    ];
    const machine = (model: string, machineId: string) => ({ model, machineId, key: `${model}#MACHINE#${machineId}` });
    expect(machinesOf(records)).toEqual([machine('default', '1'), machine('default', '2'), machine('other', '1')]);
    expect(records.map((r) => machineOf(r)?.key)).toEqual([
      'default#MACHINE#1',
      undefined,
      'default#MACHINE#2',
      'other#MACHINE#1',
      'default#MACHINE#1',
      undefined,
      undefined,
      undefined,
    ]);
  });
});
