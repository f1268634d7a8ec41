// A log group behind a mocked CloudWatchLogsClient (there is no local CloudWatch Logs server).
// It answers FilterLogEvents as the real API does — events in [startTime, endTime] oldest first,
// each `{timestamp, message, logStreamName, eventId, ingestionTime}`, in pages with `nextToken`,
// an event readable only once ingested — but ignores `filterPattern`: it returns a superset of
// what CloudWatch would, so the reader's own recordMatches() is what these tests prove (the
// patterns it sends are asserted separately, as text).
import { randomInt } from 'node:crypto';
import { CloudWatchLogsClient, FilterLogEventsCommand, type FilteredLogEvent } from '@aws-sdk/client-cloudwatch-logs';
import { mockClient } from 'aws-sdk-client-mock';

export const LOG_GROUP = '/aws/lambda/drover-ci-api';

/** A 56-digit id, as CloudWatch's eventIds are. */
const eventId = () => Array.from({ length: 56 }, (_, i) => (i === 0 ? randomInt(1, 10) : randomInt(0, 10))).join('');

export interface FakeLogGroup {
  client: CloudWatchLogsClient;
  mock: ReturnType<typeof mockClient>;
  /** The clock of the group (and of the reader under test). */
  now: number;
  /** A line the function wrote at `timestamp` (default now), readable `delayMs` later. */
  ingest(message: string, options?: { timestamp?: number; delayMs?: number; stream?: string }): FilteredLogEvent;
  events: FilteredLogEvent[];
}

/**
 * `stillSearching`: each search first answers this many pages with no events and a token, as
 * CloudWatch does while it is still scanning.
 */
export function fakeLogGroup(options: { pageSize?: number; now?: number; stillSearching?: number } = {}): FakeLogGroup {
  const pageSize = options.pageSize ?? 10_000;
  const stillSearching = options.stillSearching ?? 0;
  const client = new CloudWatchLogsClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
  const mock = mockClient(client);
  const group: FakeLogGroup = {
    client,
    mock,
    now: options.now ?? Date.parse('2024-05-01T12:00:00.000Z'),
    events: [],
    ingest(message, { timestamp, delayMs = 0, stream = '2024/05/01/[$LATEST]0123456789abcdef0123456789abcdef' } = {}) {
      const at = timestamp ?? group.now;
      const event = { timestamp: at, message, logStreamName: stream, eventId: eventId(), ingestionTime: at + delayMs };
      group.events.push(event);
      return event;
    },
  };
  mock.on(FilterLogEventsCommand).callsFake((input: FilterLogEventsCommand['input']) => {
    if (input.logGroupName !== LOG_GROUP) throw new Error(`ResourceNotFoundException: The specified log group does not exist.`);
    const start = input.startTime ?? 0;
    const end = input.endTime ?? Number.MAX_SAFE_INTEGER;
    if (start > end) throw new Error('InvalidParameterException: startTime must be before endTime');
    const inRange = group.events
      .filter((e) => e.timestamp! >= start && e.timestamp! <= end && e.ingestionTime! <= group.now)
      .sort((a, b) => a.timestamp! - b.timestamp!);
    const searched = input.nextToken?.startsWith('searching-')
      ? Number(input.nextToken.slice('searching-'.length))
      : input.nextToken
        ? stillSearching
        : 0;
    if (searched < stillSearching) return Promise.resolve({ events: [], searchedLogStreams: [], nextToken: `searching-${searched + 1}` });
    const offset = input.nextToken?.startsWith('page-') ? Number(input.nextToken.slice('page-'.length)) : 0;
    const events = inRange.slice(offset, offset + pageSize);
    const next = offset + pageSize < inRange.length ? `page-${offset + pageSize}` : undefined;
    return Promise.resolve({ events, searchedLogStreams: [], ...(next ? { nextToken: next } : {}) });
  });
  return group;
}
