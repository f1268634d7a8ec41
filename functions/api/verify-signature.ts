// SigV4 checked the way API Gateway's IAM authorization checks it, for the local controller,
// where there is no API Gateway: the request is signed again with the key its Credential names
// and the two signatures compared. Only what SigV4 covers is trusted: the method, path, query,
// the signed headers and the body (whose SHA-256 the client states and we check), within a few
// minutes of the signing time.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
import { SignatureV4 } from '@smithy/signature-v4';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { createHash, timingSafeEqual } from 'node:crypto';
import { NodeSha256 } from '#shared/aws/node-sha256.js';
import { SIGNING_SERVICE, signableQuery } from '#shared/aws/sign-request.js';

/** A signature older or newer than this is refused (API Gateway allows 5 minutes too). */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([A-Za-z0-9-]{1,64})\/(\d{8})\/([a-z0-9-]{1,32})\/([a-z0-9-]{1,32})\/aws4_request, ?SignedHeaders=([a-z0-9;-]{1,512}), ?Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
/** Headers every signed request must sign: where it goes, when, what it carries. */
const ALWAYS_SIGNED = ['host', 'x-amz-date', 'x-amz-content-sha256'];

export interface SignedBy {
  /** The key id of the Credential. */
  keyId: string;
}

/**
 * The key id that signed `event`, if its signature is good for `secretOf(keyId)` and covers
 * `mustSign` too; undefined for a request unsigned, signed badly, signed by an unknown key, or
 * signed too long ago.
 */
export async function verifySignature(
  event: APIGatewayProxyEventV2,
  secretOf: (keyId: string) => Promise<string | undefined>,
  options: { mustSign?: string[]; now?: Date } = {},
): Promise<SignedBy | undefined> {
  const now = options.now ?? new Date();
  const headers = event.headers ?? {};
  const match = AUTHORIZATION.exec(headers.authorization ?? '');
  if (!match) return undefined;
  const [, keyId, scopeDate, region, service, signedList, signature] = match as unknown as string[] as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const signedHeaders = signedList.split(';');
  if (service !== SIGNING_SERVICE || ![...ALWAYS_SIGNED, ...(options.mustSign ?? [])].every((h) => signedHeaders.includes(h)))
    return undefined;
  const amzDate = headers['x-amz-date'] ?? '';
  const date = AMZ_DATE.exec(amzDate);
  if (!date || amzDate.slice(0, 8) !== scopeDate) return undefined;
  const signedAt = new Date(Date.UTC(+date[1]!, +date[2]! - 1, +date[3]!, +date[4]!, +date[5]!, +date[6]!));
  if (Math.abs(now.getTime() - signedAt.getTime()) > MAX_CLOCK_SKEW_MS) return undefined;
  const body = event.body === undefined ? Buffer.alloc(0) : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  if (headers['x-amz-content-sha256'] !== createHash('sha256').update(body).digest('hex')) return undefined;
  const secret = await secretOf(keyId);
  if (secret === undefined) return undefined;

  const host = headers.host ?? '';
  const signer = new SignatureV4({
    service,
    region,
    credentials: { accessKeyId: keyId, secretAccessKey: secret },
    sha256: NodeSha256,
  });
  const query = signableQuery(new URLSearchParams(event.rawQueryString ?? ''));
  const resigned = await signer.sign(
    {
      method: event.requestContext.http.method,
      protocol: 'http:',
      hostname: host.replace(/:\d+$/, ''),
      path: event.rawPath,
      query,
      headers: Object.fromEntries(signedHeaders.map((h) => [h, headers[h] ?? ''])),
      body,
    },
    { signingDate: signedAt },
  );
  const expected = /Signature=([0-9a-f]{64})$/.exec(resigned.headers.authorization ?? '')?.[1] ?? '';
  const same = expected.length === signature.length && timingSafeEqual(Buffer.from(expected), Buffer.from(signature));
  return same ? { keyId } : undefined;
}
