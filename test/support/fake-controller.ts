// A stand-in for embedded/main.ts in the CLI's bootstrap tests (DROVER_CONTROLLER_MAIN): it keeps
// the local controller's contract — `--data-dir DIR`, writes DIR/controller.json
// ({controllerId, apiUrl, token, pid, warnings}, 0600) once the API listens and tells its supervisor so, removes it on SIGTERM
// or when its supervisor dies (embedded/supervision-channel.ts) — but serves the API
// over a table in the test run's DynamoDB Local (DROVER_TEST_DYNAMODB_ENDPOINT) instead of
// starting its own, so a bootstrap takes a second instead of many.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startApiServer } from '../../embedded/api-server.js';
import { charmFileRoutes } from '../../embedded/charm-files.js';
import { onSupervisorGone, tellSupervisorReady } from '../../embedded/supervision-channel.js';
import { createApiHandler } from '../../functions/api/handler.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { createStore } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { testAgentKeys } from './agent-events.js';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' } } });
const dataDir = values['data-dir'];
if (!dataDir) throw new Error('--data-dir is required');
if (process.env.FAKE_CONTROLLER_FAIL) {
  console.error(`fake controller: ${process.env.FAKE_CONTROLLER_FAIL}`);
  process.exit(3);
}

const store = createStore({ table: `cli-${randomUUID()}`, endpoint: process.env.DROVER_TEST_DYNAMODB_ENDPOINT, region: 'local' });
await ensureTable(store.client, store.table);
await ensureModel(store);
// As the real one, its identity, token and port are made at the first start and kept in
// secrets.json for the next, so a client recorded before a restart still reaches it.
const secretsFile = join(dataDir, 'secrets.json');
const kept = existsSync(secretsFile)
  ? (JSON.parse(readFileSync(secretsFile, 'utf8')) as { controllerId: string; token: string; apiPort: number })
  : undefined;
const controllerId = kept?.controllerId ?? `fake-${randomUUID()}`;
const token = kept?.token ?? randomBytes(16).toString('hex');
const charms = localCharmStore(join(dataDir, 'charms'));
const server = await startApiServer(
  createApiHandler({
    store,
    charms,
    auth: { kind: 'token', token },
    agents: { kind: 'machine-keys', keys: testAgentKeys },
    controller: 'fake',
    logger: { error: (...args: unknown[]) => console.error(...args) } as never,
  }),
  { direct: charmFileRoutes(charms), ...(kept ? { port: kept.apiPort } : {}) },
);
writeFileSync(secretsFile, JSON.stringify({ controllerId, token, apiPort: Number(new URL(server.url).port) }), { mode: 0o600 });
const info = join(dataDir, 'controller.json');
// FAKE_CONTROLLER_WARNING: a warning the real one gives (embedded/controller.ts: hooks not sandboxed).
const warnings = process.env.FAKE_CONTROLLER_WARNING ? [process.env.FAKE_CONTROLLER_WARNING] : [];
writeFileSync(`${info}.tmp`, JSON.stringify({ controllerId, apiUrl: server.url, token, pid: process.pid, warnings }), { mode: 0o600 });
renameSync(`${info}.tmp`, info);
console.log(`fake controller listening on ${server.url}`);
tellSupervisorReady();

const stop = () => {
  rmSync(info, { force: true });
  void server.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
onSupervisorGone(stop);
