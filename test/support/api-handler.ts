// The API handler as the agent API tests run it: over the test's store, users by a bearer token
// (API_TOKEN), agents by the test machine keys (agent-events.ts), charms and agent logs in a
// fresh temporary directory.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiHandler } from '../../functions/api/handler.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { fileLogSink } from '#shared/logs/file-log-sink.js';
import type { Store } from '#shared/state/engine/store.js';
import { testAgentKeys } from './agent-events.js';

export const API_TOKEN = 'token';

export async function testApiHandler(store: Store): Promise<ReturnType<typeof createApiHandler>> {
  const dir = await mkdtemp(join(tmpdir(), 'drover-api-'));
  return createApiHandler({
    store,
    charms: localCharmStore(join(dir, 'charms')),
    auth: { kind: 'token', token: API_TOKEN },
    agents: { kind: 'machine-keys', keys: testAgentKeys },
    controller: 'test',
    logger: { error: () => undefined } as never,
    logs: fileLogSink(join(dir, 'logs')),
  });
}
