// A stream consumer's entry (functions/stream-consumers.ts) as a local stream poller's options:
// the settings its event source mapping gets on AWS (infra/stream-consumers.ts), so the local
// controller's functions are fed as Lambda feeds them.
import { recordMatches, type StreamConsumer } from '../../functions/stream-consumers.js';
import type { StreamPollerOptions } from '../stream-poller.js';

export type ConsumerPollerSettings = Required<
  Pick<
    StreamPollerOptions,
    'functionName' | 'batchSize' | 'maxRetryAttempts' | 'maximumRecordAgeMs' | 'bisectBatchOnFunctionError' | 'filter'
  >
>;

export function pollerSettingsOf(consumer: StreamConsumer): ConsumerPollerSettings {
  return {
    functionName: consumer.name,
    batchSize: consumer.batchSize,
    maxRetryAttempts: consumer.retryAttempts,
    maximumRecordAgeMs: consumer.maxRecordAgeSeconds * 1000,
    bisectBatchOnFunctionError: consumer.bisectBatchOnError,
    filter: (record) => recordMatches(consumer.filter, record),
  };
}
