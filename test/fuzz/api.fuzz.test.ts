// The API fuzzer: hostile requests (test/support/fuzz-api.ts) against the API handler in-process,
// over a real DynamoDB Local table holding a small model (wordpress on machines 0 and 1, mysql on
// machine 2, related; agent credentials for machines 0 and 1). Properties, for every request:
// - no 5xx: whatever a client sends wrong is a 4xx with a message (functions/api/http.ts);
// - no hang: an answer within REQUEST_BOUND_MS;
// - no partial write: a refused request (4xx) leaves every item of the table as it was;
// - no agent acts on another machine's unit: such a request is never answered 200;
// - an error answer says what was wrong: `{error: {code, message}}` with a message.
// A fresh model every MODEL_EVERY inputs, since accepted requests change it (remove-application
// and the like). DROVER_FUZZ_RUNS sets the number of inputs (DROVER_SOAK=1: 10,000);
// DROVER_FUZZ_SEED replays a run; the seed and the figures are printed every run.
import fc from 'fast-check';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiHandler } from '../../functions/api/handler.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { fileLogSink } from '#shared/logs/file-log-sink.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { recordInstance } from '#shared/state/operations/provisioning.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { fuzzRequests, UNIT_MACHINES, type FuzzContext } from '../support/fuzz-api.js';
import { fuzzRuns, fuzzSeed, withinMs } from '../support/fuzz-run.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';
import { signEvent, testAgentKeys } from '../support/agent-events.js';
import { silentLogger } from '../support/silent-logger.js';

const RUNS = fuzzRuns(300);
const SEED = fuzzSeed();
const TOKEN = 'fuzz-admin-token';
/** Every request answers well within this on DynamoDB Local; longer is a hang. */
const REQUEST_BOUND_MS = 20_000;
const MODEL_EVERY = 40;
const METADATA = 'name: db2\nsummary: s\ndescription: d\nseries: [jammy]\nprovides:\n  server: mysql\n';

interface Model {
  store: Store;
  api: ReturnType<typeof createApiHandler>;
  ctx: FuzzContext;
}

async function freshModel(dir: string): Promise<Model> {
  const store = await freshStore();
  await ensureModel(store);
  await deploy(store, { charm: charms.wordpress, numUnits: 2 });
  await deploy(store, { charm: charms.mysql, numUnits: 1 });
  const { key, id } = await addRelation(store, ['wordpress', 'mysql']);
  for (const m of ['0', '1']) {
    await setAgentCredentialHash(store, m, hashAgentCredential(`secret-${m}`), 0);
    await recordInstance(store, m, { instanceId: `i-${m}`, attempt: 0 });
  }
  await enterScope(store, 'wordpress/0', key, { 'private-address': '10.0.0.1' });
  await enterScope(store, 'mysql/0', key, { 'private-address': '10.0.0.3' });
  const api = createApiHandler({
    store,
    charms: localCharmStore(join(dir, 'charms')),
    auth: { kind: 'token', token: TOKEN },
    agents: { kind: 'machine-keys', keys: testAgentKeys },
    controller: 'fuzz',
    logger: silentLogger,
    logs: fileLogSink(join(dir, 'logs')),
  });
  return { store, api, ctx: { relationKey: key, relationId: id, metadata: METADATA } };
}

describe('the API, fuzzed', () => {
  it('answers every hostile request within a bound, never 5xx, and a refused one changes nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'drover-fuzz-api-'));
    const counts = { inputs: 0, fiveHundreds: 0, partialWrites: 0, hangs: 0, foreign: 0, refused: 0, accepted: 0 };
    let model = await freshModel(dir);
    // The generators need the relation's key and id; they are the same in every fresh model.
    const property = fc.asyncProperty(fuzzRequests(model.ctx, TOKEN), async (request) => {
      if (counts.inputs > 0 && counts.inputs % MODEL_EVERY === 0) model = await freshModel(dir);
      counts.inputs++;
      const before = await dumpTable(model.store);
      const answer = await withinMs(
        REQUEST_BOUND_MS,
        model.api(request.signAs ? await signEvent(request.event, request.signAs) : request.event),
      ).catch((e: Error) => e);
      if (answer instanceof Error) {
        if (answer.message === 'timeout') counts.hangs++;
        throw new Error(`${request.describe}\n→ ${answer.message === 'timeout' ? 'no answer (hang)' : `threw ${answer.stack}`}`);
      }
      const status = answer.statusCode ?? 0;
      if (status >= 500) {
        counts.fiveHundreds++;
        throw new Error(`${request.describe}\n→ ${status} ${String(answer.body).slice(0, 500)}`);
      }
      if (status >= 400) {
        counts.refused++;
        const body = JSON.parse(String(answer.body)) as { error?: { code?: string; message?: string } };
        expect(body.error?.message, request.describe).toMatch(/\S/);
        const after = await dumpTable(model.store);
        if (JSON.stringify(after) !== JSON.stringify(before)) {
          counts.partialWrites++;
          expect(after, `a refused request changed the table: ${request.describe}`).toEqual(before);
        }
      } else {
        counts.accepted++;
        // An agent acts only on its own machine's units (functions/api/agent-routes.ts).
        const owner = request.agent?.unit !== undefined ? UNIT_MACHINES[request.agent.unit] : undefined;
        if (owner !== undefined && owner !== request.agent!.machine) {
          counts.foreign++;
          throw new Error(
            `${request.describe}\n→ ${status}: machine ${request.agent!.machine} acted on ${request.agent!.unit} of machine ${owner}`,
          );
        }
      }
    });
    try {
      await fc.assert(property, { numRuns: RUNS, seed: SEED });
    } finally {
      console.info(
        `fuzz api (seed ${SEED}): ${counts.inputs} inputs, ${counts.fiveHundreds} 5xx, ${counts.partialWrites} partial writes, ${counts.hangs} hangs, ` +
          `${counts.foreign} acts on another machine's unit ` +
          `(${counts.refused} refused, ${counts.accepted} accepted)`,
      );
      await rm(dir, { recursive: true, force: true });
    }
  }, 900_000);
});
