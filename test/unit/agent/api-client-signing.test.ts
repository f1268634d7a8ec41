// What an agent sends: every request SigV4-signed for execute-api, naming its machine in a signed
// header, with the session token of instance-role credentials (EC2), and signed again on a retry.
// The signature is checked as API Gateway would check it (functions/api/verify-signature.ts).
import { Readable } from 'node:stream';
import { HttpResponse } from '@smithy/core/protocols';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createAgentApi } from '../../../agent/api-client.js';
import type { HttpSend } from '../../../agent/http.js';
import { urlOf } from '../../support/http-requests.js';
import { verifySignature } from '../../../functions/api/verify-signature.js';
import { MACHINE_HEADER, MODEL_HEADER } from '#shared/api/agent-signing.js';

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A sender that records what is sent and answers with the given statuses in turn. */
function recordingHttp(statuses: number[]) {
  const sent: Sent[] = [];
  const http: HttpSend = async (request) => {
    sent.push({
      url: urlOf(request),
      method: request.method,
      headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v])),
      body: typeof request.body === 'string' ? request.body : undefined,
    });
    const status = statuses.shift() ?? 200;
    const body = status === 200 ? '{"ok":true}' : '{"error":{"code":"internal","message":"x"}}';
    return new HttpResponse({ statusCode: status, headers: {}, body: Readable.from([Buffer.from(body)]) });
  };
  return { sent, http };
}

/** The request as API Gateway hands it to the function. */
function asEvent(request: Sent): APIGatewayProxyEventV2 {
  const url = new URL(request.url);
  return {
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers: { ...request.headers, host: url.host },
    requestContext: { http: { method: request.method } },
    isBase64Encoded: false,
    ...(request.body !== undefined ? { body: request.body } : {}),
  } as unknown as APIGatewayProxyEventV2;
}

const ROLE_CREDENTIALS = { accessKeyId: 'ASIAEXAMPLEINSTANCE', secretAccessKey: 'role-secret', sessionToken: 'session-token' };

describe('an agent request', () => {
  it("is signed with the instance role's credentials, its machine and model in signed headers, and checks out as API Gateway checks it", async () => {
    const { sent, http } = recordingHttp([200]);
    const api = createAgentApi({
      url: 'https://abc.execute-api.eu-west-1.amazonaws.com',
      model: 'm-1',
      machineId: '3',
      credentials: ROLE_CREDENTIALS,
      region: 'eu-west-1',
      http,
    });
    await api.call('view', {});
    const [request] = sent;
    expect(request!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=ASIAEXAMPLEINSTANCE\/\d{8}\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=[a-z0-9;-]*x-drover-machine/,
    );
    expect(request!.headers[MACHINE_HEADER]).toBe('3');
    expect(request!.headers[MODEL_HEADER]).toBe('m-1');
    expect(request!.headers['x-amz-security-token']).toBe('session-token');
    const secretOf = async (keyId: string) => (keyId === ROLE_CREDENTIALS.accessKeyId ? ROLE_CREDENTIALS.secretAccessKey : undefined);
    const mustSign = [MACHINE_HEADER, MODEL_HEADER];
    expect(await verifySignature(asEvent(request!), secretOf, { mustSign })).toEqual({ keyId: 'ASIAEXAMPLEINSTANCE' });
    // The same request with another machine or another model named does not.
    const changed = { ...request!, headers: { ...request!.headers, [MACHINE_HEADER]: '4' } };
    expect(await verifySignature(asEvent(changed), secretOf, { mustSign })).toBeUndefined();
    const otherModel = { ...request!, headers: { ...request!.headers, [MODEL_HEADER]: 'm-2' } };
    expect(await verifySignature(asEvent(otherModel), secretOf, { mustSign })).toBeUndefined();
  });

  it('is signed again when it is retried after a server failure', async () => {
    const { sent, http } = recordingHttp([503, 200]);
    const api = createAgentApi({
      url: 'http://127.0.0.1:1',
      model: 'default',
      machineId: '0',
      credentials: { accessKeyId: 'machine-0', secretAccessKey: 'k' },
      region: 'local',
      http,
      attempts: 2,
    });
    await api.call('heartbeat', {});
    expect(sent).toHaveLength(2);
    for (const request of sent) expect(request.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=machine-0\//);
    expect(sent[1]!.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
  });
});
