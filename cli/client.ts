// The user API over HTTP: `POST /v1/<operation>` with the operation's JSON body, `GET` for reads;
// errors come back as `{error: {code, message}}`. A local controller takes the bearer token made
// at bootstrap; an AWS controller takes IAM, so requests are SigV4-signed (cli/sigv4.ts).
import type { ReadOperation, RequestOf, WriteOperation } from '#shared/api/requests.js';
import type { ControllerEntry, SelectedController } from './config.js';
import { ApiError, CliError } from './errors.js';
import { sendHttpRequest, type HttpResponse } from './http-request.js';
import type { OutgoingRequest, RequestSigner } from './request-signer.js';
import { errorMessage } from '#shared/domain/errors.js';

const DEFAULT_TIMEOUT_MS = 60_000;

function bearerSigner(name: string, controller: ControllerEntry): RequestSigner {
  return async () => {
    if (!controller.token) throw new CliError(`controller "${name}" has no token in the client config; bootstrap or register it again`);
    return { authorization: `Bearer ${controller.token}` };
  };
}

async function awsSigner(name: string, controller: ControllerEntry): Promise<RequestSigner> {
  // Loaded only for AWS controllers: the SDK's credential chain is slow to import.
  const { sigv4Signer } = await import('./sigv4.js');
  return sigv4Signer(name, controller.region ?? regionFromUrl(controller.apiUrl));
}

/** `https://<id>.execute-api.<region>.amazonaws.com` names its region. */
export function regionFromUrl(apiUrl: string): string | undefined {
  return new URL(apiUrl).hostname.match(/\.execute-api\.([a-z0-9-]+)\.amazonaws\.com$/)?.[1];
}

/** Why a connection failed, in the socket error's words. */
function connectionReason(e: unknown): string {
  if (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')) return 'no answer in time';
  return errorMessage(e) || (e as NodeJS.ErrnoException).code || String(e);
}

/**
 * What to run when a controller does not answer: a local controller with its data directory is
 * started again on it by `bootstrap local` (and restarted by its supervisor after a crash, so
 * this is for one stopped, or given up on); of any other, only the list of controllers helps.
 */
function startAdvice(name: string, controller: ControllerEntry): string {
  if (controller.type === 'local' && controller.dataDir)
    return `is it running? start it again with "drover bootstrap local ${name} --data-dir ${controller.dataDir}"`;
  return 'is it running? (drover bootstrap local / drover controllers)';
}

export class ApiClient {
  private signer: Promise<RequestSigner> | undefined;

  constructor(
    readonly selected: SelectedController,
    /** `headers`: sent (and signed) with every request: the model the commands act on. */
    private readonly options: { signal?: AbortSignal; timeoutMs?: number; headers?: Record<string, string> } = {},
  ) {}

  get name(): string {
    return this.selected.name;
  }

  private sign(): Promise<RequestSigner> {
    const { name, controller } = this.selected;
    this.signer ??= controller.type === 'aws' ? awsSigner(name, controller) : Promise.resolve(bearerSigner(name, controller));
    return this.signer;
  }

  /**
   * This client with these headers too, signing as this one does (the same credentials): the
   * dashboard reads the model its page chose with it (cli/dashboard/page-model.ts).
   */
  withHeaders(headers: Record<string, string>): ApiClient {
    const client = new ApiClient(this.selected, { ...this.options, headers: { ...this.options.headers, ...headers } });
    client.signer = this.sign();
    return client;
  }

  post<O extends WriteOperation, R = unknown>(operation: O, body: RequestOf<O>): Promise<R> {
    return this.request<R>('POST', operation, undefined, body);
  }

  get<R = unknown>(operation: ReadOperation, query?: Record<string, string | string[] | undefined>): Promise<R> {
    return this.request<R>('GET', operation, query);
  }

  private async request<R>(
    method: 'GET' | 'POST',
    path: string,
    query?: Record<string, string | string[] | undefined>,
    body?: unknown,
  ): Promise<R> {
    const { name, controller } = this.selected;
    const url = new URL(`${controller.apiUrl.replace(/\/+$/, '')}/v1/${path}`);
    for (const [key, value] of Object.entries(query ?? {})) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) url.searchParams.append(key, v);
    }
    const request: OutgoingRequest = { method, url, headers: { accept: 'application/json', ...this.options.headers } };
    if (body !== undefined) {
      request.body = JSON.stringify(body);
      request.headers['content-type'] = 'application/json';
    }
    const auth = await (await this.sign())(request);
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    let response: HttpResponse;
    try {
      response = await sendHttpRequest({
        method,
        url,
        headers: { ...request.headers, ...auth },
        ...(request.body !== undefined ? { body: request.body } : {}),
        signal: this.options.signal ? AbortSignal.any([timeout, this.options.signal]) : timeout,
      });
    } catch (e) {
      if (this.options.signal?.aborted) throw new CliError('interrupted');
      throw new CliError(
        `cannot connect to controller "${name}" at ${controller.apiUrl}: ${connectionReason(e)}; ${startAdvice(name, controller)}`,
      );
    }
    const { text } = response;
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      throw new CliError(`unexpected answer from controller "${name}" (HTTP ${response.status}): ${text.slice(0, 200)}`);
    }
    if (response.status >= 200 && response.status < 300) return parsed as R;
    const error = (parsed as { error?: { code?: string; message?: string } }).error;
    if (error?.message) throw new ApiError(error.code ?? 'unknown', error.message, response.status);
    // API Gateway's own refusals (IAM) are `{"message": "..."}`.
    const message = (parsed as { message?: string }).message ?? text.slice(0, 200);
    if (response.status === 403) throw new ApiError('unauthorized', `permission denied by controller "${name}": ${message}`, 403);
    throw new ApiError('unknown', `controller "${name}" answered HTTP ${response.status}: ${message}`, response.status);
  }
}

/** A route the controller does not have (an older controller, or one not written yet). */
export const isMissingRoute = (e: unknown) => e instanceof ApiError && e.httpStatus === 404 && /^no route /.test(e.message);
