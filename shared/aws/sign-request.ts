// One HTTP request signed with SigV4 for API Gateway (`execute-api`): the CLI's requests to an
// AWS controller, and every machine agent's requests (with its instance role on AWS, with its
// machine's own key on the local controller, which checks it the same way:
// functions/api/verify-signature.ts).
import type { SignatureV4 } from '@smithy/signature-v4';

export const SIGNING_SERVICE = 'execute-api';

export interface RequestToSign {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** When it is signed; now unless given. */
  signingDate?: Date;
}

/** A query string as SigV4 signs it: each key once, with its one value or all of them in order. */
export function signableQuery(params: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    query[key] = values.length === 1 ? values[0]! : values;
  }
  return query;
}

/** The headers to send: the request's own, the signature's, and no `host` (the HTTP client sets it from the URL). */
export async function signRequest(signer: SignatureV4, request: RequestToSign): Promise<Record<string, string>> {
  const query = signableQuery(request.url.searchParams);
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: request.url.protocol,
      hostname: request.url.hostname,
      ...(request.url.port ? { port: Number(request.url.port) } : {}),
      path: request.url.pathname,
      query,
      headers: { ...request.headers, host: request.url.host },
      ...(request.body !== undefined ? { body: request.body } : {}),
    },
    request.signingDate ? { signingDate: request.signingDate } : {},
  );
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(signed.headers)) if (key.toLowerCase() !== 'host') headers[key] = value;
  return headers;
}
