// The Powertools logger a function handler takes, saying nothing: for tests and benches that run
// handlers in-process and read what happened from the table, not from the log.
import type { Logger } from '@aws-lambda-powertools/logger';

const quiet = () => undefined;

export const silentLogger = { debug: quiet, info: quiet, warn: quiet, error: quiet } as unknown as Logger;
