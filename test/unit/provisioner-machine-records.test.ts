import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { machineOf, machinesOf } from '../../functions/provisioner/machine-records.js';
import { ATTR } from '#shared/state/engine/keys.js';

const record = (
  pk: string,
  kind: string,
  id: string,
  seq: string,
  image: 'NewImage' | 'OldImage' = 'NewImage',
  fields: Record<string, unknown> = {},
) => ({
  eventName: image === 'NewImage' ? ('MODIFY' as const) : ('REMOVE' as const),
  dynamodb: {
    Keys: marshall({ pk, sk: 'ITEM' }) as never,
    [image]: marshall({ pk, sk: 'ITEM', [ATTR.kind]: kind, id, ...fields }) as never,
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

  it('leaves out a machine whose latest record shows it Alive with its instance: the provisioner has nothing to do for it', () => {
    const running = { life: 'alive', instanceId: 'i-1' };
    const records: DynamoDBRecord[] = [
      // Its instance recorded, then its agent's status: nothing for the provisioner.
      record('default#MACHINE#1', 'machine', '1', '1', 'NewImage', running),
      record('default#MACHINE#1', 'machine', '1', '2', 'NewImage', { ...running, agentStatus: 'started' }),
      // Running first, then Dying in the same batch: the latest record counts.
      record('default#MACHINE#2', 'machine', '2', '3', 'NewImage', { life: 'alive', instanceId: 'i-2' }),
      record('default#MACHINE#2', 'machine', '2', '4', 'NewImage', { life: 'dying', instanceId: 'i-2' }),
      // Alive without an instance (to provision), Dead with one (to decommission), removed.
      record('default#MACHINE#3', 'machine', '3', '5', 'NewImage', { life: 'alive' }),
      record('default#MACHINE#4', 'machine', '4', '6', 'NewImage', { life: 'dead', instanceId: 'i-4' }),
      record('default#MACHINE#5', 'machine', '5', '7', 'OldImage', running),
    ];
    expect(machinesOf(records).map((m) => m.machineId)).toEqual(['2', '3', '4', '5']);
    // Its records still name it, to share the batch's outcome.
    expect(machineOf(records[0]!)?.machineId).toBe('1');
  });
});
