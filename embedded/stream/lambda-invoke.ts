// Invokes a stream handler in-process the way the Lambda Node.js runtime does, and reads its
// answer the way an event source mapping with ReportBatchItemFailures does
// (https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-batchfailurereporting.html):
// - a throw or rejection is a function error: the whole batch failed;
// - no response, or an empty/null batchItemFailures, is complete success;
// - an itemIdentifier that is empty, missing or not a sequence number of this batch makes the
//   whole batch a failure; otherwise the batch failed from its lowest reported record on.
import { randomUUID } from 'node:crypto';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamHandler } from 'aws-lambda';
import { sequenceNumberOf } from './lambda-event.js';

export type InvocationResult =
  | { ok: true }
  /** `failedFrom`: index of the first record to retry; absent when the whole batch failed. */
  | { ok: false; error: unknown; failedFrom?: number };

export interface InvokeOptions {
  functionName: string;
  region: string;
  /** Like a Lambda function's timeout; a handler still running then counts as a function error. */
  timeoutMs?: number;
}

/** Reported by the handler through batchItemFailures (rather than thrown). */
export class BatchItemFailuresError extends Error {
  constructor(readonly itemIdentifiers: string[]) {
    super(`the handler reported batch item failures: ${itemIdentifiers.join(', ')}`);
    this.name = 'BatchItemFailuresError';
  }
}

export class FunctionTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`the handler did not finish within ${timeoutMs} ms`);
    this.name = 'FunctionTimeoutError';
  }
}

function lambdaContext(options: InvokeOptions, deadline: number): Context {
  const fail = () => {
    throw new Error('context.done/fail/succeed are not supported: return a promise');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: options.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${options.region}:000000000000:function:${options.functionName}`,
    memoryLimitInMB: '128',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${options.functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: fail,
    fail,
    succeed: fail,
  };
}

/** Calls the handler; a non-async handler answers through the callback, as on Lambda. */
function callHandler(handler: DynamoDBStreamHandler, records: DynamoDBRecord[], context: Context): Promise<DynamoDBBatchResponse | void> {
  return new Promise((resolve, reject) => {
    try {
      // A fresh copy per invocation: on Lambda every invocation deserializes its own event, so
      // a handler that mutates records cannot change what a retry sees.
      const returned = handler({ Records: structuredClone(records) }, context, (error, result) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result),
      );
      if (returned && typeof returned.then === 'function') returned.then(resolve, reject);
    } catch (error) {
      reject(error);
    }
  });
}

function withTimeout<T>(work: Promise<T>, timeoutMs: number | undefined): Promise<T> {
  if (timeoutMs === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FunctionTimeoutError(timeoutMs)), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Reads a handler's response as ReportBatchItemFailures does. */
export function interpretResponse(response: unknown, records: DynamoDBRecord[]): InvocationResult {
  const failures = (response as Partial<DynamoDBBatchResponse> | null | undefined)?.batchItemFailures;
  if (failures === undefined || failures === null) return { ok: true };
  if (!Array.isArray(failures)) return { ok: false, error: new Error('batchItemFailures is not a list') };
  if (failures.length === 0) return { ok: true };
  const identifiers = failures.map((f: unknown) => (f as { itemIdentifier?: unknown } | null)?.itemIdentifier);
  const indexes = identifiers.map((id) =>
    typeof id === 'string' && id !== '' ? records.findIndex((r) => sequenceNumberOf(r) === id) : -1,
  );
  const error = new BatchItemFailuresError(identifiers.map(String));
  if (indexes.some((i) => i < 0)) return { ok: false, error };
  return { ok: false, error, failedFrom: Math.min(...indexes) };
}

export async function invokeHandler(
  handler: DynamoDBStreamHandler,
  records: DynamoDBRecord[],
  options: InvokeOptions,
): Promise<InvocationResult> {
  const deadline = Date.now() + (options.timeoutMs ?? 15 * 60_000);
  try {
    const response = await withTimeout(callHandler(handler, records, lambdaContext(options, deadline)), options.timeoutMs);
    return interpretResponse(response, records);
  } catch (error) {
    return { ok: false, error };
  }
}
