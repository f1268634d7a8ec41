// Turns a record as the DynamoDB Streams SDK returns it into the record Lambda hands to a
// function (the `DynamoDBRecord` of aws-lambda), so that a handler sees the same bytes locally
// as on AWS. The differences are the SDK's deserialization, undone here:
// - binary attributes (B, BS) are Uint8Array in the SDK and base64 strings in Lambda events;
// - ApproximateCreationDateTime is a Date in the SDK and epoch seconds in Lambda events;
// - userIdentity (TTL deletions) has PascalCase keys in the API and camelCase in Lambda events.
// The conversion is total: a record it does not understand is passed on as it is, never thrown
// on, because a record that cannot be read must not stop its shard.
import type { _Record, AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBRecord, StreamRecord } from 'aws-lambda';

type Image = Record<string, AttributeValue>;

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function toLambdaAttribute(value: SdkAttributeValue): AttributeValue {
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.SS !== undefined) return { SS: value.SS };
  if (value.NS !== undefined) return { NS: value.NS };
  if (value.BS !== undefined) return { BS: value.BS.map(base64) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaAttribute) };
  if (value.M !== undefined) return { M: toLambdaImage(value.M) };
  // The Streams SDK deserializes an empty map, `{"M": {}}`, to `{}` (measured with DynamoDB Local
  // and client-dynamodb-streams 3.1141); no other attribute value has no type key.
  if (Object.keys(value).length === 0) return { M: {} };
  // A type this SDK does not know ($unknown): pass the raw shape through.
  return value as unknown as AttributeValue;
}

function toLambdaImage(image: Record<string, SdkAttributeValue>): Image {
  const out: Image = {};
  for (const [name, value] of Object.entries(image)) out[name] = toLambdaAttribute(value);
  return out;
}

export function toLambdaRecord(record: _Record, eventSourceARN: string): DynamoDBRecord {
  const stream = record.dynamodb ?? {};
  const dynamodb: StreamRecord = {};
  if (stream.ApproximateCreationDateTime !== undefined)
    dynamodb.ApproximateCreationDateTime = stream.ApproximateCreationDateTime.getTime() / 1000;
  if (stream.Keys) dynamodb.Keys = toLambdaImage(stream.Keys);
  if (stream.NewImage) dynamodb.NewImage = toLambdaImage(stream.NewImage);
  if (stream.OldImage) dynamodb.OldImage = toLambdaImage(stream.OldImage);
  if (stream.SequenceNumber !== undefined) dynamodb.SequenceNumber = stream.SequenceNumber;
  if (stream.SizeBytes !== undefined) dynamodb.SizeBytes = stream.SizeBytes;
  if (stream.StreamViewType !== undefined) dynamodb.StreamViewType = stream.StreamViewType;
  const out: DynamoDBRecord = {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: record.eventSource,
    awsRegion: record.awsRegion,
    dynamodb,
    eventSourceARN,
  };
  if (record.userIdentity) out.userIdentity = { type: record.userIdentity.Type, principalId: record.userIdentity.PrincipalId };
  return out;
}

/** The sequence number that identifies a record in its shard (and in batchItemFailures). */
export function sequenceNumberOf(record: DynamoDBRecord): string {
  const sequenceNumber = record.dynamodb?.SequenceNumber;
  if (sequenceNumber === undefined) throw new Error(`stream record ${record.eventID ?? '?'} has no SequenceNumber`);
  return sequenceNumber;
}

/** When the record was written (ms since the epoch), if the stream says. */
export function createdAtMs(record: DynamoDBRecord): number | undefined {
  const seconds = record.dynamodb?.ApproximateCreationDateTime;
  return seconds === undefined ? undefined : seconds * 1000;
}
