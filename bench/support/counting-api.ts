// The API as the local controller serves it (user routes on a bearer token, agent routes on the
// keys the provisioner hands out), on 127.0.0.1, counting the agents' requests by operation:
// what the agent benches report per unit and per idle hour.
import { startApiServer } from '../../embedded/api-server.js';
import { charmFileRoutes } from '../../embedded/charm-files.js';
import { createApiHandler } from '../../functions/api/handler.js';
import type { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { fileLogSink } from '#shared/logs/file-log-sink.js';
import { derivedAgentCredentials } from '#shared/provisioner/agent-credentials.js';
import type { Store } from '#shared/state/engine/store.js';
import { apiOperation } from './requests-by-operation.js';
import { silentLogger } from '../../test/support/silent-logger.js';

export interface CountingApi {
  url: string;
  /** Agent requests so far, by operation (`view`, `set-unit-status`, …). */
  apiCalls: Map<string, number>;
  close(): Promise<void>;
}

export async function startCountingApi(options: {
  store: Store;
  charms: ReturnType<typeof localCharmStore>;
  agentKeys: ReturnType<typeof derivedAgentCredentials>;
  token: string;
  controller: string;
  logsDir: string;
}): Promise<CountingApi> {
  const handler = createApiHandler({
    store: options.store,
    charms: options.charms,
    auth: { kind: 'token', token: options.token },
    agents: { kind: 'machine-keys', keys: options.agentKeys },
    controller: options.controller,
    logger: silentLogger,
    logs: fileLogSink(options.logsDir),
  });
  const apiCalls = new Map<string, number>();
  const server = await startApiServer(
    async (event) => {
      // Every agent operation counted by name (a heartbeat rides on the resync, so an idle window has none).
      const op = /^\/v1\/agent\/([^/]+)/.exec(event.rawPath)?.[1];
      if (!op) return handler(event);
      apiCalls.set(op, (apiCalls.get(op) ?? 0) + 1);
      // Its DynamoDB requests are counted under its name (requests-by-operation.ts).
      return apiOperation.run(op, () => handler(event));
    },
    { direct: charmFileRoutes(options.charms) },
  );
  return { url: server.url, apiCalls, close: () => server.close() };
}
