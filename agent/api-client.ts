// The agent's side of the agent API (functions/api/agent-routes.ts): `POST /v1/agent/<op>`. Every request is SigV4-signed and names its machine in a signed header
// (functions/api/agent-identity.ts says how the controller checks it): with the instance role's
// credentials on AWS, with the machine's own key on the local controller. Server failures,
// throttling (429: API Gateway's stage limit, shared by every caller) and network errors are
// retried a few times with backoff (every agent operation is safe to repeat: the state operations
// behind them are idempotent); a refusal (any other 4xx) is not.
import { systemClock, type Clock } from './clock.js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpResponse } from '@smithy/core/protocols';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import type { AgentOperation, AgentRequestOf } from '#shared/api/agent-requests.js';
import { MACHINE_HEADER, MODEL_HEADER } from '#shared/api/agent-signing.js';
import { NodeSha256 } from '#shared/aws/node-sha256.js';
import { signRequest, SIGNING_SERVICE } from '#shared/aws/sign-request.js';
import { bodyText, nodeHttp, ok, requestTo, type HttpSend } from './http.js';

export class AgentApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'AgentApiError';
  }
  /**
   * The API refused the request itself (it would be refused again); being throttled is not a refusal.
   * Any AgentApiError is an answer, though: the controller was reached and said no, or failed on its
   * side after every retry. A network failure is never an AgentApiError.
   */
  get refused(): boolean {
    return this.status >= 400 && this.status < 500 && this.status !== TOO_MANY_REQUESTS;
  }
}

export interface AgentApi {
  call<T = unknown>(op: AgentOperation, body: AgentRequestOf<AgentOperation>): Promise<T>;
  /** The API's URL: the local controller's charm URLs are relative to it (agent/charm-cache.ts). */
  readonly url: string;
}

export interface AgentApiOptions {
  url: string;
  /** The key of the machine's model. */
  model: string;
  machineId: string;
  /** What signs: the machine's key on the local controller, the instance role's credentials on AWS. */
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  region: string;
  attempts?: number;
  /** What sends (./http.ts); its own kept-alive connections unless given. */
  http?: HttpSend;
  /** Times the pauses between attempts. */
  clock?: Clock;
}

/** API Gateway's answer when its throttle refuses a request: try again later. */
const TOO_MANY_REQUESTS = 429;

/** Worth another attempt: a server failure, or throttling. */
const retryable = (status: number) => status >= 500 || status === TOO_MANY_REQUESTS;

export function createAgentApi(options: AgentApiOptions): AgentApi {
  const base = options.url.replace(/\/+$/, '');
  const signer = new SignatureV4({
    service: SIGNING_SERVICE,
    region: options.region,
    credentials: options.credentials,
    sha256: NodeSha256,
  });
  const attempts = options.attempts ?? 5;
  const send = options.http ?? nodeHttp();
  const clock = options.clock ?? systemClock;

  async function request(path: string, body: string): Promise<HttpResponse> {
    let lastError: unknown;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await clock.sleep(Math.min(5_000, 200 * 2 ** attempt) * (0.5 + Math.random() / 2));
      try {
        // Signed again for each attempt: a signature is good for a few minutes only.
        const url = new URL(`${base}${path}`);
        const headers = await signRequest(signer, {
          method: 'POST',
          url,
          headers: { 'content-type': 'application/json', [MACHINE_HEADER]: options.machineId, [MODEL_HEADER]: options.model },
          body,
        });
        const res = await send(requestTo(url, { method: 'POST', headers, body }));
        if (!retryable(res.statusCode)) return res;
        lastError = await failure(res);
      } catch (e) {
        lastError = e;
      }
    }
    throw lastError;
  }

  async function failure(res: HttpResponse): Promise<AgentApiError> {
    const text = await bodyText(res).catch(() => '');
    try {
      const { error } = JSON.parse(text) as { error: { code: string; message: string } };
      return new AgentApiError(res.statusCode, error.code, error.message);
    } catch {
      return new AgentApiError(res.statusCode, 'unknown', `HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
    }
  }

  return {
    url: base,
    async call<T>(op: AgentOperation, body: unknown): Promise<T> {
      const res = await request(`/v1/agent/${op}`, JSON.stringify(body));
      if (!ok(res)) throw await failure(res);
      return JSON.parse(await bodyText(res)) as T;
    },
  };
}
