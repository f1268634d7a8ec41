// Which agent operation each of the API's DynamoDB requests was made for: the counting API runs
// each agent request inside `apiOperation` (counting-api.ts), and middleware on the API's store
// counts every request under that operation and its command. Tells where the reads of a unit
// start go, operation by operation.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Store } from '#shared/state/engine/store.js';

/** The agent operation (`view`, `report`, …) the API is serving in this async context. */
export const apiOperation = new AsyncLocalStorage<string>();

export class RequestsByOperation {
  /** Requests so far by `<operation> <command>`; `other` for what no agent request made. */
  readonly counts = new Map<string, number>();

  constructor(store: Store) {
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        const key = `${apiOperation.getStore() ?? 'other'} ${(context.commandName ?? '').replace(/Command$/, '')}`;
        this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
        return next(args);
      },
      { step: 'initialize', name: 'benchRequestsByOperation' },
    );
  }

  /** A copy of the counts so far. */
  now(): Map<string, number> {
    return new Map(this.counts);
  }
}
