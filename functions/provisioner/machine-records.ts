// Which machines a stream batch is about. Only machine items matter (old image for a removal,
// new image otherwise), of whichever model: the table holds every model of the controller, and a
// record's model is in its key (functions/stream-models.ts). A machine named by several records in
// one batch is reconciled once: reconciling is level-triggered, so the latest state covers every
// change the records describe.
//
// A machine whose latest record shows it Alive with its instance recorded is left out: that is
// what reconcileMachine answers 'running' to, doing nothing. Its agent's status reports, its units
// coming and going and the recording of its instance itself are such records, and each would cost
// the provisioner a read of the machine. Any later change (Dying, Dead, removed) is a later record.
import type { DynamoDBRecord } from 'aws-lambda';
import type { Machine } from '#shared/domain/entities.js';
import { refs } from '#shared/domain/plan.js';
import { keyOf } from '#shared/state/engine/keys.js';
import { imagesOf } from '#shared/state/engine/stream-record.js';
import { modelOfRecord } from '../stream-models.js';

/** A machine of a model; `key`, its item's key, tells it from machine `machineId` of another model. */
export interface RecordedMachine {
  model: string;
  machineId: string;
  key: string;
}

/** The machines the batch's records are about that may need the provisioner, each once, in batch order. */
export function machinesOf(records: DynamoDBRecord[]): RecordedMachine[] {
  const found = new Map<string, { machine: RecordedMachine; latest: Machine | undefined }>();
  for (const record of records) {
    const recorded = recordedMachine(record);
    if (!recorded) continue;
    const seen = found.get(recorded.machine.key);
    if (seen) seen.latest = recorded.newImage;
    else found.set(recorded.machine.key, { machine: recorded.machine, latest: recorded.newImage });
  }
  return [...found.values()].filter(({ latest }) => !(latest?.life === 'alive' && latest.instanceId)).map(({ machine }) => machine);
}

/** The machine a record is about, if it is a machine item of some model. */
export function machineOf(record: DynamoDBRecord): RecordedMachine | undefined {
  return recordedMachine(record)?.machine;
}

function recordedMachine(record: DynamoDBRecord): { machine: RecordedMachine; newImage: Machine | undefined } | undefined {
  let images;
  try {
    images = imagesOf(record);
  } catch {
    return undefined; // not an item drover wrote: nothing for the provisioner
  }
  if (images.kind !== 'machine') return undefined;
  const id = (images.newImage ?? images.oldImage)?.id;
  const model = modelOfRecord(record);
  if (typeof id !== 'string' || model === undefined) return undefined;
  // The key must be the one the machine's id and model make: anything else is not a machine item.
  const key = keyOf(model, refs.machine(id)).pk;
  if (record.dynamodb?.Keys?.pk?.S !== key) return undefined;
  return { machine: { model, machineId: id, key }, newImage: images.newImage as Machine | undefined };
}
