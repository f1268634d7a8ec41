// On AWS: each record becomes one JSON line `{"debugLog": record}` on the API function's stdout,
// which Lambda delivers to the function's CloudWatch Logs group. debug-log reads them back from
// that group (cloudwatch-log-reader.ts) when the function knows its name (DEBUG_LOG_GROUP).
import { DroverError } from '../domain/errors.js';
import type { LogPage, LogQuery, LogSink } from './log-sink.js';

export interface LambdaLogSinkOptions {
  write?: (line: string) => void;
  /** Reads the group back; absent, debug-log says it is not available. */
  read?: (query: LogQuery) => Promise<LogPage>;
}

export function lambdaLogSink(options: LambdaLogSinkOptions = {}): LogSink {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  return {
    async append(records) {
      for (const record of records) write(JSON.stringify({ debugLog: record }));
    },
    async read(query) {
      if (options.read) return options.read(query);
      throw new DroverError(
        'not-supported',
        'debug-log is not available on this controller yet: agent logs are in the API function\'s CloudWatch Logs group (field "debugLog")',
      );
    },
  };
}
