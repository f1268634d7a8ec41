// While the local controller's DynamoDB Local is down (killed, restarting: see
// embedded/supervised-dynamodb.ts), no request can be served, and the honest answer is "try
// again soon", not "internal error": 503 with a message saying why, and Retry-After. A request
// that was under way when the database went away fails inside the handler with a 500; it is
// answered the same way, since the database, not drover, failed it. Nothing was half-written:
// every change is one transaction, done or not.
import type { HttpHandler } from './api-server.js';

export interface DatabaseHealth {
  isUp(): boolean;
  restarts(): number;
}

export const DATABASE_RESTARTING_MESSAGE =
  'the controller database (DynamoDB Local) is restarting after it stopped unexpectedly; try again in a few seconds';

const RETRY_AFTER_SECONDS = '5';

const unavailable = () => ({
  statusCode: 503,
  headers: { 'content-type': 'application/json', 'retry-after': RETRY_AFTER_SECONDS },
  body: JSON.stringify({ error: { code: 'unavailable', message: DATABASE_RESTARTING_MESSAGE } }),
});

export function guardedByDatabase(handler: HttpHandler, database: DatabaseHealth): HttpHandler {
  return async (event) => {
    if (!database.isUp()) return unavailable();
    const restartsBefore = database.restarts();
    const result = await handler(event);
    const failed = (result.statusCode ?? 200) >= 500;
    if (failed && (!database.isUp() || database.restarts() !== restartsBefore)) return unavailable();
    return result;
  };
}
