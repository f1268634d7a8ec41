// Agent requests as the API receives them: signed as a machine agent signs them
// (agent/api-client.ts), with a machine key, and the keys the API checks them against.
import { SignatureV4 } from '@smithy/signature-v4';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { localAgentKeyId, MACHINE_HEADER, MODEL_HEADER } from '#shared/api/agent-signing.js';
import { NodeSha256 } from '#shared/aws/node-sha256.js';
import { signRequest, SIGNING_SERVICE } from '#shared/aws/sign-request.js';
import type { AgentCredentials } from '#shared/provisioner/agent-credentials.js';
import { apiEvent } from './api-events.js';

/** The tests' machine keys: machine N's is `secret-N` (the hash tests store with setAgentCredentialHash). */
export const testAgentKeys: AgentCredentials = { forAttempt: async ({ machineId }) => `secret-${machineId}` };

export interface Signature {
  /** The machine the request names. */
  machine: string;
  /** The model's key the request names; by default none, which the API takes for `default`. */
  model?: string;
  /** The key it is signed with; by default the machine's own test key. */
  secret?: string;
  /** The key id; by default the machine's. */
  keyId?: string;
  /** When it was signed; by default now. */
  at?: Date;
}

/** An agent request to `path`, signed. */
export const agentEvent = (method: string, path: string, body: unknown, by: Signature): Promise<APIGatewayProxyEventV2> =>
  signEvent(apiEvent(method, path, body), by);

/** The event as it arrives signed: its method, path, query and body, as they are. */
export async function signEvent(event: APIGatewayProxyEventV2, by: Signature): Promise<APIGatewayProxyEventV2> {
  const host = 'localhost';
  const signer = new SignatureV4({
    service: SIGNING_SERVICE,
    region: 'local',
    credentials: { accessKeyId: by.keyId ?? localAgentKeyId(by.machine), secretAccessKey: by.secret ?? `secret-${by.machine}` },
    sha256: NodeSha256,
  });
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  const body = event.body === undefined ? undefined : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  const headers = await signRequest(signer, {
    method: event.requestContext.http.method,
    url: new URL(`http://${host}${event.rawPath}${query}`),
    headers: { ...event.headers, [MACHINE_HEADER]: by.machine, ...(by.model !== undefined ? { [MODEL_HEADER]: by.model } : {}) } as Record<
      string,
      string
    >,
    ...(body !== undefined ? { body } : {}),
    ...(by.at ? { signingDate: by.at } : {}),
  });
  // Headers arrive lower-cased, as API Gateway and the local server deliver them.
  const delivered = Object.fromEntries(Object.entries({ ...headers, host }).map(([k, v]) => [k.toLowerCase(), v]));
  return { ...event, headers: delivered };
}

/** A `<key id>:<secret>` string as a signature: the fuzzer's odd agent credentials. */
export function signatureOf(credential: string): Signature {
  const colon = credential.indexOf(':');
  const keyId = colon < 0 ? credential : credential.slice(0, colon);
  return { machine: keyId.replace(/^machine-/, ''), keyId, secret: colon < 0 ? '' : credential.slice(colon + 1) };
}
