// On AWS: each record becomes one JSON line on the API function's stdout, which Lambda delivers
// to the function's CloudWatch Logs group. Reading them back for debug-log means FilterLogEvents
// on that group (filter pattern `{ $.debugLog.entity = "unit-mysql-0" }`), which needs
// @aws-sdk/client-cloudwatch-logs and the group's name; until that is wired, reads say so.
import { DroverError } from '../domain/errors.js';
import type { LogSink } from './log-sink.js';

export function lambdaLogSink(write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): LogSink {
  return {
    async append(records) {
      for (const record of records) write(JSON.stringify({ debugLog: record }));
    },
    async read() {
      throw new DroverError(
        'not-supported',
        'debug-log is not available on this controller yet: agent logs are in the API function\'s CloudWatch Logs group (field "debugLog")',
      );
    },
  };
}
