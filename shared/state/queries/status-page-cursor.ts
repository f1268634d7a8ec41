// Where a paged status read stopped (shared/state/queries/status-pages.ts), as the opaque cursor
// the client passes back. A cursor travels through the client, so one may come back garbled or
// made up: anything that does not parse as a position is refused as bad input, and the listing
// cursors inside it are checked again by the listing they belong to (shared/state/engine/reads.ts).
import * as z from 'zod';
import { invalidArgument } from '../../domain/errors.js';
import { STATUS_SECTIONS } from '../../domain/status-page.js';
import { MACHINE_SHARDS } from '../engine/keys.js';

const text = z.string().max(4096);
const statusInfo = z.strictObject({ current: text, message: text.optional(), since: text });

/** A few names and how many there are (a Dying model's blocked-by lists five and counts the rest). */
const counted = z.strictObject({ count: z.int().min(0), first: z.array(text).max(5) });

const position = z
  .strictObject({
    section: z.enum(STATUS_SECTIONS),
    /** After this entity of the section's current collection (a listing cursor). */
    after: text.optional(),
    /** machines: each shard's listing cursor, '' from its start, null once done. */
    shards: z.array(text.nullable()).length(MACHINE_SHARDS).optional(),
    /** units: the application whose units are being listed (from `after`, or its first). */
    application: text.optional(),
    /** units: every unit of `application` was sent; go on with the next principal application. */
    done: z.literal(true).optional(),
    /** applications: the first one after `after`, summarized part way through its units. */
    partial: z
      .strictObject({
        name: text,
        after: text,
        summary: z.strictObject({
          units: z.int().min(0),
          ready: z.int().min(0),
          worst: statusInfo.optional(),
          version: z.strictObject({ value: text, since: text }).optional(),
        }),
      })
      .optional(),
    /** A Dying model's: what the pages so far saw of what holds it. */
    left: z.strictObject({ applications: counted, machines: counted, unitsInError: counted }).optional(),
  })
  // What only another section's position has, or a listing cursor with no listing to belong to.
  .refine(
    (p) =>
      (p.section === 'units' || (p.application === undefined && p.done === undefined)) &&
      (p.section === 'units' ? p.after === undefined || (p.application !== undefined && !p.done) : true) &&
      (p.section === 'machines' ? p.after === undefined : p.shards === undefined) &&
      (p.section === 'applications' ? true : p.partial === undefined),
  );

export type Position = z.infer<typeof position>;
export type Counted = z.infer<typeof counted>;

export const encodePosition = (p: Position) => Buffer.from(JSON.stringify(p)).toString('base64url');

export function decodePosition(cursor: string): Position {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch {
    value = undefined;
  }
  const parsed = position.safeParse(value);
  if (!parsed.success)
    throw invalidArgument(
      'invalid status cursor: pass back the cursor of the previous page unchanged, or none to start from the first page',
    );
  return parsed.data;
}
