// The four DynamoDB Streams calls the poller makes, as a port: the real client in production and
// in most tests, a wrapper where a test needs the service to misbehave (expired iterators,
// trimmed data, shard rollover), which DynamoDB Local will not do on demand.
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListStreamsCommand,
  type DescribeStreamCommandInput,
  type DescribeStreamCommandOutput,
  type GetRecordsCommandInput,
  type GetRecordsCommandOutput,
  type GetShardIteratorCommandInput,
  type GetShardIteratorCommandOutput,
  type ListStreamsCommandInput,
  type ListStreamsCommandOutput,
} from '@aws-sdk/client-dynamodb-streams';

export interface StreamReader {
  listStreams(input: ListStreamsCommandInput, signal?: AbortSignal): Promise<ListStreamsCommandOutput>;
  describeStream(input: DescribeStreamCommandInput, signal?: AbortSignal): Promise<DescribeStreamCommandOutput>;
  getShardIterator(input: GetShardIteratorCommandInput, signal?: AbortSignal): Promise<GetShardIteratorCommandOutput>;
  getRecords(input: GetRecordsCommandInput, signal?: AbortSignal): Promise<GetRecordsCommandOutput>;
}

export function streamReader(client: DynamoDBStreamsClient): StreamReader {
  // The abort signal ends an in-flight request when the poller stops.
  const options = (signal?: AbortSignal) => (signal ? { abortSignal: signal } : {});
  return {
    listStreams: (input, signal) => client.send(new ListStreamsCommand(input), options(signal)),
    describeStream: (input, signal) => client.send(new DescribeStreamCommand(input), options(signal)),
    getShardIterator: (input, signal) => client.send(new GetShardIteratorCommand(input), options(signal)),
    getRecords: (input, signal) => client.send(new GetRecordsCommand(input), options(signal)),
  };
}

/** The table's current stream: the one with the latest label (labels are ISO timestamps). */
export async function latestStreamArn(reader: StreamReader, tableName: string, signal?: AbortSignal): Promise<string | undefined> {
  let latest: { arn: string; label: string } | undefined;
  let start: string | undefined;
  do {
    const page = await reader.listStreams({ TableName: tableName, ...(start ? { ExclusiveStartStreamArn: start } : {}) }, signal);
    for (const stream of page.Streams ?? []) {
      if (stream.StreamArn && (!latest || (stream.StreamLabel ?? '') > latest.label))
        latest = { arn: stream.StreamArn, label: stream.StreamLabel ?? '' };
    }
    start = page.LastEvaluatedStreamArn;
  } while (start);
  return latest?.arn;
}

export interface ShardInfo {
  shardId: string;
  parentShardId?: string;
  /** The shard has an ending sequence number: no record will be added to it. */
  closed: boolean;
}

/** Every shard of the stream (DescribeStream pages through them 100 at a time). */
export async function listShards(reader: StreamReader, streamArn: string, signal?: AbortSignal): Promise<ShardInfo[]> {
  const shards: ShardInfo[] = [];
  let start: string | undefined;
  do {
    const page = await reader.describeStream({ StreamArn: streamArn, ...(start ? { ExclusiveStartShardId: start } : {}) }, signal);
    for (const shard of page.StreamDescription?.Shards ?? []) {
      if (!shard.ShardId) continue;
      shards.push({
        shardId: shard.ShardId,
        ...(shard.ParentShardId ? { parentShardId: shard.ParentShardId } : {}),
        closed: shard.SequenceNumberRange?.EndingSequenceNumber !== undefined,
      });
    }
    start = page.StreamDescription?.LastEvaluatedShardId;
  } while (start);
  return shards;
}

/** The service's error name, whatever wrapped it (SDK exception classes are not shared by wrappers). */
export function errorName(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'name' in error ? String((error as { name: unknown }).name) : undefined;
}
