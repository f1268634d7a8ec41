// How the API knows which machine's agent is calling (functions/api/agent-identity.ts): on the
// local controller a SigV4 signature with the machine's own key, on AWS the instance behind the
// instance role's credentials. Everything else is refused with 403 and changes nothing.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignatureV4 } from '@smithy/signature-v4';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import { startApiServer } from '../../embedded/api-server.js';
import type { AgentIdentity } from '../../functions/api/agent-identity.js';
import type { UserAuth } from '../../functions/api/auth.js';
import { createApiHandler } from '../../functions/api/handler.js';
import { localAgentKeyId, MACHINE_HEADER, MODEL_HEADER } from '#shared/api/agent-signing.js';
import { NodeSha256 } from '#shared/aws/node-sha256.js';
import { signRequest, SIGNING_SERVICE } from '#shared/aws/sign-request.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { derivedAgentCredentials, newAgentCredentialKey } from '#shared/provisioner/agent-credentials.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { addModel, ensureModel } from '#shared/state/operations/model.js';
import { recordInstance, recordProvisioningError, retryProvisioning } from '#shared/state/operations/provisioning.js';
import { storeForModel, type Store } from '#shared/state/engine/store.js';
import { agentEvent, signEvent } from '../support/agent-events.js';
import { apiEvent } from '../support/api-events.js';
import { charms } from '../support/charms.js';
import { dumpTable } from '../support/table-dump.js';
import { freshStore } from '../support/table.js';
import { silentLogger } from '../support/silent-logger.js';

const NOT_SIGNED = "permission denied: the request is not signed by its machine's agent";

let store: Store;
const keys = derivedAgentCredentials(newAgentCredentialKey());
const keyOf = (machineId: string, attempt = 0) => keys.forAttempt({ model: store.model, machineId, attempt });

async function handlerWith(agents: AgentIdentity, auth: UserAuth = { kind: 'token', token: 'user-token' }) {
  const dir = await mkdtemp(join(tmpdir(), 'drover-identity-'));
  return createApiHandler({
    store,
    charms: localCharmStore(join(dir, 'charms')),
    auth,
    agents,
    controller: 'test',
    logger: silentLogger,
  });
}

const bodyOf = (res: { body?: string }) => JSON.parse(String(res.body)) as { error?: { message: string }; units?: { name: string }[] };

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  // mysql/0 on machine 0, mysql/1 on machine 1, each machine with the key of its attempt 0.
  await deploy(store, { charm: charms.mysql, numUnits: 2 });
  for (const m of ['0', '1']) await setAgentCredentialHash(store, m, hashAgentCredential(await keyOf(m)), 0);
});

describe('on the local controller: each machine signs with its own key', () => {
  it('an agent signing as machine 1 is refused on machine 0, over HTTP through the local API server', async () => {
    const api = await handlerWith({ kind: 'machine-keys', keys });
    const server = await startApiServer(api);
    try {
      const send = async (machine: string, key: string, unit: string) => {
        const signer = new SignatureV4({
          service: SIGNING_SERVICE,
          region: 'local',
          credentials: { accessKeyId: localAgentKeyId(machine), secretAccessKey: key },
          sha256: NodeSha256,
        });
        const url = new URL(`${server.url}/v1/agent/set-unit-status`);
        const body = JSON.stringify({ unit, agent: { current: 'idle' } });
        const headers = await signRequest(signer, {
          method: 'POST',
          url,
          headers: { 'content-type': 'application/json', [MACHINE_HEADER]: machine },
          body,
        });
        return fetch(url, { method: 'POST', headers, body });
      };
      const before = await dumpTable(store);
      // Machine 1's agent, rightly signed, about machine 0's unit: its identity holds, the route refuses.
      expect((await send('1', await keyOf('1'), 'mysql/0')).status).toBe(403);
      // Machine 1's key presented as machine 0: the signature does not hold.
      const forged = await send('0', await keyOf('1'), 'mysql/0');
      expect(forged.status).toBe(403);
      expect(((await forged.json()) as { error: { message: string } }).error.message).toBe(NOT_SIGNED);
      expect(await dumpTable(store)).toEqual(before);
      // Machine 0, with its own key, about its own unit.
      expect((await send('0', await keyOf('0'), 'mysql/0')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('refuses a request changed after signing, signed too long ago, or with the machine header left unsigned', async () => {
    const api = await handlerWith({ kind: 'machine-keys', keys });
    const by = { machine: '0', secret: await keyOf('0') };
    const good = await agentEvent('POST', '/v1/agent/view', {}, by);
    expect((await api(good)).statusCode).toBe(200);

    const tampered: APIGatewayProxyEventV2[] = [
      { ...good, body: '{"a":1}' },
      { ...good, rawPath: '/v1/agent/heartbeat' },
      { ...good, headers: { ...good.headers, [MACHINE_HEADER]: '1' } },
      { ...good, headers: { ...good.headers, authorization: good.headers.authorization!.replace(/.$/, (c) => (c === '0' ? '1' : '0')) } },
      await agentEvent('POST', '/v1/agent/view', {}, { ...by, at: new Date(Date.now() - 6 * 60_000) }),
      await agentEvent('POST', '/v1/agent/view', {}, { ...by, keyId: 'machine-1' }),
    ];
    // The machine header present but outside the signature: whoever relays the request could change it.
    const unsignedMachine = await signEvent(apiEvent('POST', '/v1/agent/view', {}), by);
    unsignedMachine.headers.authorization = unsignedMachine.headers.authorization!.replace(`;${MACHINE_HEADER}`, '');
    tampered.push(unsignedMachine);
    for (const event of tampered) {
      const res = await api(event);
      expect(res.statusCode).toBe(403);
      expect(bodyOf(res).error?.message).toBe(NOT_SIGNED);
    }
  });

  it("a new provisioning attempt revokes the old attempt's key", async () => {
    const api = await handlerWith({ kind: 'machine-keys', keys });
    const old = { machine: '0', secret: await keyOf('0', 0) };
    expect((await api(await agentEvent('POST', '/v1/agent/view', {}, old))).statusCode).toBe(200);
    // The provisioner failed; the user runs retry-provisioning; the provisioner issues attempt 1's key.
    await recordProvisioningError(store, '0', { message: 'no capacity', transient: false, attempt: 0 });
    await retryProvisioning(store, '0');
    await setAgentCredentialHash(store, '0', hashAgentCredential(await keyOf('0', 1)), 1);
    expect((await api(await agentEvent('POST', '/v1/agent/view', {}, old))).statusCode).toBe(403);
    expect((await api(await agentEvent('POST', '/v1/agent/view', {}, { machine: '0', secret: await keyOf('0', 1) }))).statusCode).toBe(200);
  });

  it("in a controller of two models, machine 0 of each is its own: model A's agent is refused as model B's machine 0", async () => {
    // Model B, with its own machine 0 (its unit `db/0`) and that machine's own key: derived for B.
    const b = storeForModel(store, (await addModel(store, { name: 'other' })).uuid!);
    await deploy(b, { charm: charms.mysql, name: 'db', numUnits: 1 });
    const keyOfB = (machineId: string) => keys.forAttempt({ model: b.model, machineId, attempt: 0 });
    await setAgentCredentialHash(b, '0', hashAgentCredential(await keyOfB('0')), 0);
    const api = await handlerWith({ kind: 'machine-keys', keys });
    const view = (by: { machine: string; secret: string; model?: string }) => agentEvent('POST', '/v1/agent/view', {}, by);

    const before = await dumpTable(store);
    const refused = [
      // `default`'s machine 0, with its own key, claiming B's machine 0.
      await view({ machine: '0', secret: await keyOf('0'), model: b.model }),
      // B's machine 0, with its own key, claiming `default`'s (named, and by naming no model).
      await view({ machine: '0', secret: await keyOfB('0'), model: 'default' }),
      await view({ machine: '0', secret: await keyOfB('0') }),
      // A model that does not exist, and a claim that is no model's key.
      await view({ machine: '0', secret: await keyOf('0'), model: '00000000-0000-4000-8000-000000000000' }),
      await view({ machine: '0', secret: await keyOf('0'), model: 'default#MACHINE#0' }),
    ];
    // B's model named, but outside the signature: whoever relays the request could change it.
    const unsigned = await view({ machine: '0', secret: await keyOfB('0'), model: b.model });
    unsigned.headers.authorization = unsigned.headers.authorization!.replace(`;${MODEL_HEADER}`, '');
    refused.push(unsigned);
    for (const event of refused) {
      const res = await api(event);
      expect(res.statusCode).toBe(403);
      expect(bodyOf(res).error?.message).toBe(NOT_SIGNED);
    }
    expect(await dumpTable(store)).toEqual(before);

    // Each machine 0 as itself sees its own model's unit only.
    const own = await api(await view({ machine: '0', secret: await keyOfB('0'), model: b.model }));
    expect(own.statusCode).toBe(200);
    expect(bodyOf(own).units?.map((u) => u.name)).toEqual(['db/0']);
    const ownDefault = await api(await view({ machine: '0', secret: await keyOf('0'), model: 'default' }));
    expect(bodyOf(ownDefault).units?.map((u) => u.name)).toEqual(['mysql/0']);
  });

  it('a user token, or no credential at all, is refused on the agent routes', async () => {
    const api = await handlerWith({ kind: 'machine-keys', keys });
    expect((await api(apiEvent('POST', '/v1/agent/view', {}, 'user-token'))).statusCode).toBe(403);
    expect((await api(apiEvent('POST', '/v1/agent/view', {}))).statusCode).toBe(403);
  });
});

describe('on AWS: the instance behind the instance role', () => {
  const ROLE = 'drover-ctl-MachineAgentRole-ABC';
  const asCaller = (userArn: string, machine: string): APIGatewayProxyEventV2 => {
    const event = apiEvent('POST', '/v1/agent/view', {});
    return {
      ...event,
      headers: { ...event.headers, [MACHINE_HEADER]: machine },
      requestContext: { ...event.requestContext, authorizer: { iam: { userArn } } } as never,
    };
  };
  const instanceRole = (instance: string, role = ROLE) => `arn:aws:sts::123456789012:assumed-role/${role}/${instance}`;

  beforeEach(async () => {
    await recordInstance(store, '0', { instanceId: 'i-0aaaaaaaaaaaaaaa0', attempt: 0 });
    await recordInstance(store, '1', { instanceId: 'i-0bbbbbbbbbbbbbbb1', attempt: 0 });
  });

  it("an instance is its machine's agent, and no other's", async () => {
    const api = await handlerWith({ kind: 'instance-role', roleName: ROLE });
    const own = await api(asCaller(instanceRole('i-0aaaaaaaaaaaaaaa0'), '0'));
    expect(own.statusCode).toBe(200);
    expect(bodyOf(own).units?.map((u) => u.name)).toEqual(['mysql/0']);
    const refused = [
      asCaller(instanceRole('i-0bbbbbbbbbbbbbbb1'), '0'), // machine 1's instance naming machine 0
      asCaller(instanceRole('i-0aaaaaaaaaaaaaaa0', 'SomeOtherRole'), '0'), // another role's session
      asCaller('arn:aws:iam::123456789012:user/alice', '0'), // a user
      asCaller(instanceRole('i-0ccccccccccccccc2'), '0'), // an instance no machine has
      asCaller(instanceRole('i-0aaaaaaaaaaaaaaa0'), '0x'), // a machine id no machine could have
    ];
    for (const event of refused) expect((await api(event)).statusCode).toBe(403);
  });

  it("an instance is one model's machine: machine 0 of model B is not machine 0 of `default`", async () => {
    const b = storeForModel(store, (await addModel(store, { name: 'other' })).uuid!);
    await deploy(b, { charm: charms.mysql, name: 'db', numUnits: 1 });
    await recordInstance(b, '0', { instanceId: 'i-0ddddddddddddddd3', attempt: 0 });
    const api = await handlerWith({ kind: 'instance-role', roleName: ROLE });
    const inModel = (event: APIGatewayProxyEventV2, model: string) => ({ ...event, headers: { ...event.headers, [MODEL_HEADER]: model } });
    // `default`'s machine 0 claiming B's, and B's claiming `default`'s (named, and by naming no model).
    expect((await api(inModel(asCaller(instanceRole('i-0aaaaaaaaaaaaaaa0'), '0'), b.model))).statusCode).toBe(403);
    expect((await api(inModel(asCaller(instanceRole('i-0ddddddddddddddd3'), '0'), 'default'))).statusCode).toBe(403);
    expect((await api(asCaller(instanceRole('i-0ddddddddddddddd3'), '0'))).statusCode).toBe(403);
    const own = await api(inModel(asCaller(instanceRole('i-0ddddddddddddddd3'), '0'), b.model));
    expect(own.statusCode).toBe(200);
    expect(bodyOf(own).units?.map((u) => u.name)).toEqual(['db/0']);
  });

  it('no user route serves the agent role, whatever IAM let through', async () => {
    const api = await handlerWith({ kind: 'instance-role', roleName: ROLE }, { kind: 'iam' });
    const status = (userArn: string) => {
      const event = apiEvent('GET', '/v1/status', undefined);
      return api({ ...event, requestContext: { ...event.requestContext, authorizer: { iam: { userArn } } } as never });
    };
    expect((await status(instanceRole('i-0aaaaaaaaaaaaaaa0'))).statusCode).toBe(403);
    expect((await status('arn:aws:iam::123456789012:user/alice')).statusCode).toBe(200);
  });
});
