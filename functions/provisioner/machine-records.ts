// Which machines a stream batch is about. Only machine items matter (old image for a removal,
// new image otherwise), of whichever model: the table holds every model of the controller, and a
// record's model is in its key (functions/stream-models.ts). A machine named by several records in
// one batch is reconciled once: reconciling is level-triggered, so the latest state covers every
// change the records describe.
import type { DynamoDBRecord } from 'aws-lambda';
import { refs } from '../../shared/domain/plan.js';
import { keyOf } from '../../shared/state/engine/keys.js';
import { imagesOf } from '../../shared/state/engine/stream-record.js';
import { modelOfRecord } from '../stream-models.js';

/** A machine of a model; `key`, its item's key, tells it from machine `machineId` of another model. */
export interface RecordedMachine {
  model: string;
  machineId: string;
  key: string;
}

/** The machines the batch's records are about, each once, in batch order. */
export function machinesOf(records: DynamoDBRecord[]): RecordedMachine[] {
  const found = new Map<string, RecordedMachine>();
  for (const record of records) {
    const machine = machineOf(record);
    if (machine && !found.has(machine.key)) found.set(machine.key, machine);
  }
  return [...found.values()];
}

/** The machine a record is about, if it is a machine item of some model. */
export function machineOf(record: DynamoDBRecord): RecordedMachine | undefined {
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
  return record.dynamodb?.Keys?.pk?.S === key ? { model, machineId: id, key } : undefined;
}
