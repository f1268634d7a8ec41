// Which machines a stream batch is about. Only machine items matter (old image for a removal,
// new image otherwise), and only those of the provisioner's model. A machine named by several
// records in one batch is reconciled once: reconciling is level-triggered, so the latest state
// covers every change the records describe.
import type { DynamoDBRecord } from 'aws-lambda';
import { refs } from '../../shared/domain/plan.js';
import { keyOf } from '../../shared/state/engine/keys.js';
import { imagesOf } from '../../shared/state/engine/stream-record.js';

/** The machines the batch's records are about, each once, in batch order. */
export function machinesOf(records: DynamoDBRecord[], model: string): string[] {
  const ids = records.map((record) => machineIdOf(record, model)).filter((id) => id !== undefined);
  return [...new Set(ids)];
}

/** The machine a record is about, if it is one of this model's machine items. */
export function machineIdOf(record: DynamoDBRecord, model: string): string | undefined {
  let images;
  try {
    images = imagesOf(record);
  } catch {
    return undefined; // not an item drover wrote: nothing for the provisioner
  }
  if (images.kind !== 'machine') return undefined;
  const id = (images.newImage ?? images.oldImage)?.id;
  if (typeof id !== 'string') return undefined;
  // The table may hold other models; their machines are their own provisioners' business.
  return record.dynamodb?.Keys?.pk?.S === keyOf(model, refs.machine(id)).pk ? id : undefined;
}
