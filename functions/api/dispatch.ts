// The one way from a request to a route, for users and agents alike: the operation is looked up in
// its API's contract (shared/api/contract.ts), its method checked, its body or query string parsed
// by its schema, and its route called with the request as that schema typed it.
import * as z from 'zod';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Contract, RequestsOf } from '#shared/api/contract.js';
import { bodyTooLarge, MAX_REQUEST_BODY_BYTES, UNSTORABLE_KEY, unstorableKey, unstorableKeyPath } from '#shared/api/fields.js';
import { describeIssues } from '#shared/api/requests.js';
import { errorResponse, json, tooLargeResponse } from './http.js';

type Response = APIGatewayProxyStructuredResultV2;

/** Calls an operation's route with its parsed request: a route table indexed by operation. */
export type Invoke<C extends Contract> = <O extends keyof C & string>(op: O, request: RequestsOf<C>[O]) => Promise<unknown>;

/** The operation a path names, if the contract has one by that name. */
export function operationNamed<C extends Contract>(contract: C, name: string | undefined): (keyof C & string) | undefined {
  return name !== undefined && Object.hasOwn(contract, name) ? name : undefined;
}

/** Checks the method, parses and validates the request, calls the route: 200 with its answer, or a 4xx. */
export async function dispatch<C extends Contract, O extends keyof C & string>(
  contract: C,
  op: O,
  event: APIGatewayProxyEventV2,
  invoke: Invoke<C>,
): Promise<Response> {
  const spec: C[O] = contract[op];
  const schema: C[O]['request'] = spec.request;
  const method = event.requestContext.http.method;
  if (method !== spec.method) return errorResponse('invalid-argument', `${op} takes ${spec.method}, not ${method}`);
  const body = parseBody(event);
  if (!body.ok) return body.response;
  // zod drops `__proto__` from records without a word: refused first, naming the key.
  const holder = unstorableKeyPath(body.value);
  if (holder !== undefined) {
    return errorResponse('invalid-argument', `invalid ${op} request: ${holder ? `"${holder}" ` : ''}${unstorableKey(UNSTORABLE_KEY)}`);
  }
  // zod's own function keeps the schema's type, so the route gets its request typed without a cast.
  const parsed = z.safeParse(schema, body.value);
  if (!parsed.success) return errorResponse('invalid-argument', `invalid ${op} request: ${describeIssues(parsed.error)}`);
  return json(200, await invoke(op, parsed.data));
}

/** A GET's query string as a request object; a repeated parameter becomes a list. */
function queryObject(event: APIGatewayProxyEventV2): Record<string, string | string[]> {
  const value: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(event.rawQueryString ?? '')) {
    const prior = value[k];
    value[k] = prior === undefined ? v : [...(Array.isArray(prior) ? prior : [prior]), v];
  }
  return value;
}

function parseBody(event: APIGatewayProxyEventV2): { ok: true; value: unknown } | { ok: false; response: Response } {
  if (!event.body) return { ok: true, value: event.requestContext.http.method === 'GET' ? queryObject(event) : {} };
  // Measured before it is decoded or parsed: API Gateway's own bound, kept where no gateway is in front.
  const bytes = Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  if (bytes > MAX_REQUEST_BODY_BYTES) return { ok: false, response: tooLargeResponse(bodyTooLarge(bytes)) };
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, response: errorResponse('invalid-argument', 'the request body is not valid JSON') };
  }
}
