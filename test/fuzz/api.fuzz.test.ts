// The API fuzzer: hostile requests (test/support/fuzz-api.ts) against the API handler in-process,
// over a real DynamoDB Local table holding a small model (wordpress on machines 0 and 1, mysql on
// machine 2, related; agent credentials for machines 0 and 1; an application with a file resource;
// a user secret and one wordpress/0 owns), and hostile uploads (test/support/fuzz-uploads.ts) through
// the local API server's signed upload route. Properties, for every request:
// - no 5xx: whatever a client sends wrong is a 4xx with a message (functions/api/http.ts);
// - no hang: an answer within REQUEST_BOUND_MS;
// - no partial write: a refused request (4xx) leaves every item of the table as it was; a refused
//   upload leaves nothing in the charm store, not even a temporary file;
// - no agent acts on another machine's unit: such a request is never answered 200;
// - an error answer says what was wrong: `{error: {code, message}}` with a message.
// Every route of the API's route table has a generator (the first test says which lacks one).
// A fresh model every MODEL_EVERY inputs, since accepted requests change it (remove-application
// and the like). DROVER_FUZZ_RUNS sets the number of inputs (DROVER_SOAK=1: 10,000);
// DROVER_FUZZ_SEED replays a run; the seed and the figures are printed every run.
import fc from 'fast-check';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { createApiHandler } from '../../functions/api/handler.js';
import { startApiServer, type ApiServer } from '../../embedded/api-server.js';
import { charmFileRoutes } from '../../embedded/charm-files.js';
import { agentOperations } from '#shared/api/agent-requests.js';
import { userOperations } from '#shared/api/requests.js';
import { localCharmStore, type LocalCharmStore } from '#shared/charmstore/local-charm-store.js';
import { parseCharm } from '#shared/domain/charm.js';
import { DEFAULT_CHARMHUB_URL } from '#shared/domain/model-config.js';
import { fileLogSink } from '#shared/logs/file-log-sink.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { recordInstance } from '#shared/state/operations/provisioning.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { startCharmhubServer, type CharmhubServer } from '../support/charmhub-server.js';
import { packDotCharm } from '../support/dot-charm.js';
import { fuzzRequests, operationOf, templates, UNIT_MACHINES, type FuzzContext, type FuzzRequest } from '../support/fuzz-api.js';
import { fuzzRuns, fuzzSeed, withinMs } from '../support/fuzz-run.js';
import {
  adoptionRequest,
  archiveBytes,
  describeUpload,
  putUpload,
  sha256Of,
  uploadCases,
  UPLOAD_METADATA,
  type UploadCase,
} from '../support/fuzz-uploads.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';
import { agentEvent, signEvent, testAgentKeys } from '../support/agent-events.js';
import { apiEvent } from '../support/api-events.js';
import { silentLogger } from '../support/silent-logger.js';
import { waitFor } from '../support/wait-for.js';

const RUNS = fuzzRuns(300);
const SEED = fuzzSeed();
const TOKEN = 'fuzz-admin-token';
/** Every request answers well within this on DynamoDB Local; longer is a hang. */
const REQUEST_BOUND_MS = 20_000;
const MODEL_EVERY = 40;
const METADATA = 'name: db2\nsummary: s\ndescription: d\nseries: [jammy]\nprovides:\n  server: mysql\n';

/** An application whose charm declares the file resource `data`: attach-resource's target. */
const RESOURCE_APPLICATION = 'files';
const USER_SECRET = 'pw';
const UNIT_SECRET_LABEL = 'l';
const CHARMHUB_CHARM = fileURLToPath(new URL('../charms/database', import.meta.url));

interface Model {
  store: Store;
  api: ReturnType<typeof createApiHandler>;
  ctx: FuzzContext;
}

/** What the fuzz run shares across its models: one charm store (and its upload route), one Charmhub. */
interface Shared {
  charms: LocalCharmStore;
  hub: CharmhubServer;
  /** The local API server: the current model's handler, and the charm store's signed routes. */
  server: ApiServer;
  model?: Model;
}

/**
 * Charmhub queries reach the test's own Charmhub only: the model's default charmhub-url is sent
 * there, and any other host a request names is unreachable, as on a host without the network.
 */
function onlyTo(hub: CharmhubServer): typeof fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin === new URL(DEFAULT_CHARMHUB_URL).origin) return fetch(new URL(`${url.pathname}${url.search}`, hub.url), init);
    if (url.origin !== new URL(hub.url).origin) return Promise.reject(new TypeError(`fetch failed: ${url.host} is not reachable here`));
    return fetch(input, init);
  };
}

async function expectOk(answer: Promise<{ statusCode?: number; body?: string }>, what: string) {
  const { statusCode, body } = await answer;
  if (statusCode !== 200) throw new Error(`the fuzz model: ${what} answered ${statusCode} ${body}`);
}

async function freshModel(shared: Shared, dir: string): Promise<Model> {
  const store = await freshStore();
  await ensureModel(store);
  await deploy(store, { charm: charms.wordpress, numUnits: 2 });
  await deploy(store, { charm: charms.mysql, numUnits: 1 });
  await deploy(store, { charm: parseCharm(UPLOAD_METADATA), name: RESOURCE_APPLICATION, numUnits: 0 });
  const { key, id } = await addRelation(store, ['wordpress', 'mysql']);
  for (const m of ['0', '1']) {
    await setAgentCredentialHash(store, m, hashAgentCredential(`secret-${m}`), 0);
    await recordInstance(store, m, { instanceId: `i-${m}`, attempt: 0 });
  }
  await enterScope(store, 'wordpress/0', key, { 'private-address': '10.0.0.1' });
  await enterScope(store, 'mysql/0', key, { 'private-address': '10.0.0.3' });
  const api = createApiHandler({
    store,
    charms: shared.charms,
    auth: { kind: 'token', token: TOKEN },
    agents: { kind: 'machine-keys', keys: testAgentKeys },
    controller: 'fuzz',
    logger: silentLogger,
    logs: fileLogSink(join(dir, 'logs')),
    charmhub: {
      requestTimeoutMs: 5_000,
      charm: { maxBytes: 2 ** 26, timeoutMs: 10_000 },
      resource: { maxBytes: 2 ** 26, timeoutMs: 10_000 },
      fetch: onlyTo(shared.hub),
    },
  });
  // The secrets the secret routes act on, made through the routes themselves.
  await expectOk(
    api(apiEvent('POST', '/v1/add-secret', { name: USER_SECRET, content: { password: 'aHVudGVyMg==' } }, TOKEN)),
    'add-secret',
  );
  await expectOk(
    api(
      await agentEvent(
        'POST',
        '/v1/agent/secret-add',
        { unit: 'wordpress/0', owner: 'unit', content: { key: 'dg==' }, label: UNIT_SECRET_LABEL },
        { machine: '0' },
      ),
    ),
    'secret-add',
  );
  return {
    store,
    api,
    ctx: {
      relationKey: key,
      relationId: id,
      metadata: METADATA,
      resourceApplication: RESOURCE_APPLICATION,
      userSecret: USER_SECRET,
      unitSecretLabel: UNIT_SECRET_LABEL,
    },
  };
}

/** Every file of the charm store (archives, uploads, temporary files) and its size: what a refused upload must leave as it was. */
async function storeFiles(charms: LocalCharmStore): Promise<string[]> {
  const entries = await readdir(charms.directory, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  return (
    await Promise.all(files.map(async (f) => `${relative(charms.directory, f)} ${(await stat(f).catch(() => undefined))?.size}`))
  ).sort();
}

const isUpload = (f: string) => f.startsWith('uploads/');

interface Counts {
  inputs: number;
  fiveHundreds: number;
  partialWrites: number;
  hangs: number;
  foreign: number;
  refused: number;
  accepted: number;
  uploads: number;
  leftInStore: number;
  /** Checked content kept for a request then refused for another reason. */
  keptForRefused: number;
}

describe('the API, fuzzed', () => {
  const shared = {} as Shared;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'drover-fuzz-api-'));
    shared.charms = localCharmStore(join(dir, 'charms'));
    shared.hub = await startCharmhubServer([
      {
        name: 'fuzzhub',
        revisions: [{ revision: 1, file: packDotCharm(CHARMHUB_CHARM), bases: ['ubuntu@22.04'], channels: ['latest/stable'] }],
      },
    ]);
    shared.server = await startApiServer((event) => shared.model!.api(event), { direct: charmFileRoutes(shared.charms) });
  }, 60_000);
  afterAll(async () => {
    await shared.server?.close();
    await shared.hub?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('has a request generator for every route of the API route table', () => {
    const ctx = { relationKey: 'k', relationId: 0, metadata: '', resourceApplication: 'a', userSecret: 's', unitSecretLabel: 'l' };
    const { user, agent } = templates(ctx);
    const covered = (keys: string[]) => new Set(keys.map(operationOf));
    const userCovered = covered(Object.keys(user));
    const agentCovered = covered(Object.keys(agent));
    expect(
      Object.keys(userOperations).filter((op) => !userCovered.has(op)),
      'user routes without a generator',
    ).toEqual([]);
    expect(
      Object.keys(agentOperations).filter((op) => !agentCovered.has(op)),
      'agent routes without a generator',
    ).toEqual([]);
    // And none for a route that is not there: a renamed route is not fuzzed under its old name.
    expect([...userCovered].filter((op) => !Object.hasOwn(userOperations, op))).toEqual([]);
    expect([...agentCovered].filter((op) => !Object.hasOwn(agentOperations, op))).toEqual([]);
  });

  it('answers every hostile request within a bound, never 5xx, and a refused one changes nothing', async () => {
    const counts: Counts = {
      inputs: 0,
      fiveHundreds: 0,
      partialWrites: 0,
      hangs: 0,
      foreign: 0,
      refused: 0,
      accepted: 0,
      uploads: 0,
      leftInStore: 0,
      keptForRefused: 0,
    };
    shared.model = await freshModel(shared, dir);

    /** Sends one request and checks its answer: true when it was accepted, or the refusal's message. */
    async function check(describe: string, send: () => Promise<{ statusCode?: number; body?: string }>, request?: FuzzRequest) {
      const model = shared.model!;
      const before = await dumpTable(model.store);
      const answer = await withinMs(REQUEST_BOUND_MS, send()).catch((e: Error) => e);
      if (answer instanceof Error) {
        if (answer.message === 'timeout') counts.hangs++;
        throw new Error(`${describe}\n→ ${answer.message === 'timeout' ? 'no answer (hang)' : `threw ${answer.stack}`}`);
      }
      const status = answer.statusCode ?? 0;
      if (status >= 500) {
        counts.fiveHundreds++;
        throw new Error(`${describe}\n→ ${status} ${String(answer.body).slice(0, 500)}`);
      }
      if (status >= 400) {
        counts.refused++;
        const body = JSON.parse(String(answer.body)) as { error?: { code?: string; message?: string } };
        expect(body.error?.message, describe).toMatch(/\S/);
        const after = await dumpTable(model.store);
        if (JSON.stringify(after) !== JSON.stringify(before)) {
          counts.partialWrites++;
          expect(after, `a refused request changed the table: ${describe}`).toEqual(before);
        }
        return body.error?.message ?? '';
      }
      counts.accepted++;
      // An agent acts only on its own machine's units (functions/api/agent-routes.ts).
      const owner = request?.agent?.unit !== undefined ? UNIT_MACHINES[request.agent.unit] : undefined;
      if (owner !== undefined && owner !== request!.agent!.machine) {
        counts.foreign++;
        throw new Error(
          `${describe}\n→ ${status}: machine ${request!.agent!.machine} acted on ${request!.agent!.unit} of machine ${owner}`,
        );
      }
      return true;
    }

    const sendEvent = (event: APIGatewayProxyEventV2) => shared.model!.api(event);

    /** charm-upload, the PUT as the case says, then the request that adopts it (or the archive inline). */
    async function upload(c: UploadCase) {
      counts.uploads++;
      const what = describeUpload(c);
      const bytes = archiveBytes(c);
      const sha256 = sha256Of(bytes);
      if (c.adoption !== 'inline') {
        let target: { url: string; headers: Record<string, string> } | undefined;
        const asked = await check(`${what}: charm-upload`, async () => {
          const answer = await sendEvent(apiEvent('POST', '/v1/charm-upload', { sha256, size: bytes.length }, TOKEN));
          if (answer.statusCode === 200) target = JSON.parse(String(answer.body)) as typeof target;
          return answer;
        });
        if (asked !== true || !target) return;
        const storeBefore = await storeFiles(shared.charms);
        const put = await withinMs(REQUEST_BOUND_MS, putUpload(shared.server.url, target, bytes, c)).catch((e: Error) => e);
        if (put instanceof Error) {
          if (put.message === 'timeout') counts.hangs++;
          throw new Error(`${what}: the PUT → ${put.message === 'timeout' ? 'no answer (hang)' : put.stack}`);
        }
        if (put.status !== undefined && put.status >= 500) {
          counts.fiveHundreds++;
          throw new Error(`${what}: the PUT → ${put.status} ${put.body.slice(0, 500)}`);
        }
        // A content type is not part of what the URL is signed for, on S3 as here: the bytes are what is checked.
        if (c.put === 'exact' || c.put === 'text-content-type') expect(put.status, `${what}: the PUT → ${put.body}`).toBe(200);
        else {
          expect(put.status ?? 400, `${what}: a wrong PUT → ${put.body}`).toBeGreaterThanOrEqual(400);
          // Refused (or cut off): nothing kept, not even its temporary file, once the server has seen the end of it.
          const left = await waitFor(
            `${what}: the charm store as it was`,
            () => storeFiles(shared.charms),
            (files) => JSON.stringify(files) === JSON.stringify(storeBefore),
            5_000,
          ).catch(async () => storeFiles(shared.charms));
          if (JSON.stringify(left) !== JSON.stringify(storeBefore)) {
            counts.leftInStore++;
            expect(left, `${what}: a refused upload left files in the charm store`).toEqual(storeBefore);
          }
        }
      }
      const { op, body } = adoptionRequest(c, sha256, bytes, RESOURCE_APPLICATION);
      const archivesBefore = (await storeFiles(shared.charms)).filter((f) => !isUpload(f));
      const answer = await check(`${what}: ${op}`, () => sendEvent(apiEvent('POST', `/v1/${op}`, body, TOKEN)));
      // An archive refused as a charm is never kept (its upload is deleted: it would be refused
      // again). Content that passed its checks is kept before the change is committed, so that a
      // crash never leaves a name without its bytes: a change refused after that (an application
      // that exists) leaves it kept, nothing naming it (docs/reliability.md); counted, not refused.
      const archivesAfter = (await storeFiles(shared.charms)).filter((f) => !isUpload(f));
      const keptAnew = JSON.stringify(archivesAfter) !== JSON.stringify(archivesBefore);
      if (answer !== true && /charm archive|a zip|sha256/.test(answer)) {
        if (keptAnew) counts.leftInStore++;
        expect(archivesAfter, `${what}: a refused archive was kept (${answer})`).toEqual(archivesBefore);
      } else if (answer !== true && keptAnew) counts.keptForRefused++;
    }

    type Input = { kind: 'request'; request: FuzzRequest } | { kind: 'upload'; upload: UploadCase };
    const inputs: fc.Arbitrary<Input> = fc.oneof(
      { weight: 14, arbitrary: fuzzRequests(shared.model.ctx, TOKEN).map((request): Input => ({ kind: 'request', request })) },
      { weight: 1, arbitrary: uploadCases.map((upload): Input => ({ kind: 'upload', upload })) },
    );
    // The generators need the relation's key and id; they are the same in every fresh model.
    const property = fc.asyncProperty(inputs, async (input) => {
      if (counts.inputs > 0 && counts.inputs % MODEL_EVERY === 0) shared.model = await freshModel(shared, dir);
      counts.inputs++;
      if (input.kind === 'upload') return upload(input.upload);
      const request = input.request;
      await check(
        request.describe,
        async () => sendEvent(request.signAs ? await signEvent(request.event, request.signAs) : request.event),
        request,
      );
    });
    try {
      await fc.assert(property, { numRuns: RUNS, seed: SEED });
    } finally {
      console.info(
        `fuzz api (seed ${SEED}): ${counts.inputs} inputs, ${counts.fiveHundreds} 5xx, ${counts.partialWrites} partial writes, ${counts.hangs} hangs, ` +
          `${counts.foreign} acts on another machine's unit, ${counts.leftInStore} refused uploads left in the store ` +
          `(${counts.refused} refused, ${counts.accepted} accepted; ${counts.uploads} uploads, ` +
          `${counts.keptForRefused} kept for a request then refused)`,
      );
    }
  }, 900_000);
});
