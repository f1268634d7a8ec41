// The API handler as the agent API tests run it: over the test's store, users by a bearer token
// (API_TOKEN), agents by the test machine keys (agent-events.ts), charms and agent logs in a
// fresh temporary directory; and the same over HTTP (startTestApiServer).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from '../../embedded/api-server.js';
import { charmFileRoutes } from '../../embedded/charm-files.js';
import { createApiHandler } from '../../functions/api/handler.js';
import { localCharmStore, type LocalCharmStore } from '#shared/charmstore/local-charm-store.js';
import { fileLogSink } from '#shared/logs/file-log-sink.js';
import type { Store } from '#shared/state/engine/store.js';
import { testAgentKeys } from './agent-events.js';
import { silentLogger } from './silent-logger.js';

export const API_TOKEN = 'token';

export async function testApiHandler(store: Store): Promise<ReturnType<typeof createApiHandler>> {
  const dir = await mkdtemp(join(tmpdir(), 'drover-api-'));
  return createApiHandler({
    store,
    charms: localCharmStore(join(dir, 'charms')),
    auth: { kind: 'token', token: API_TOKEN },
    agents: { kind: 'machine-keys', keys: testAgentKeys },
    controller: 'test',
    logger: silentLogger,
    logs: fileLogSink(join(dir, 'logs')),
  });
}

/** The user API over HTTP, as the CLI reaches it, with the local charm store's upload and download routes. */
export interface TestApiServer {
  url: string;
  charms: LocalCharmStore;
  /** POST /v1/<op> with the user's token: the status and the parsed answer. */
  call(op: string, body: unknown): Promise<{ status: number; body: { error?: { message: string } } & Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function startTestApiServer(store: Store): Promise<TestApiServer> {
  const charms = localCharmStore(join(await mkdtemp(join(tmpdir(), 'drover-api-')), 'charms'));
  const handler = createApiHandler({
    store,
    charms,
    auth: { kind: 'token', token: API_TOKEN },
    agents: { kind: 'machine-keys', keys: testAgentKeys },
    controller: 'test',
    logger: silentLogger,
  });
  const server = await startApiServer(handler, { direct: charmFileRoutes(charms) });
  return {
    url: server.url,
    charms,
    async call(op, body) {
      const res = await fetch(`${server.url}/v1/${op}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as never };
    },
    close: () => server.close(),
  };
}
