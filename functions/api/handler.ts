// The API function: API Gateway HTTP API (payload v2) events in, JSON out. Thin: parse and
// validate the request (zod), authenticate, call one route, map errors (functions/api/http.ts).
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { Logger } from '@aws-lambda-powertools/logger';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { S3Client } from '@aws-sdk/client-s3';
import { agentRequests, type AgentOperation } from '../../shared/api/agent-requests.js';
import { bodyTooLarge, MAX_REQUEST_BODY_BYTES } from '../../shared/api/fields.js';
import { describeIssues, methodOf, requests, type Operation } from '../../shared/api/requests.js';
import { s3CharmStore, type CharmStore } from '../../shared/charmstore/charm-store.js';
import { cloudWatchLogReader } from '../../shared/logs/cloudwatch-log-reader.js';
import { lambdaLogSink } from '../../shared/logs/lambda-log-sink.js';
import type { LogSink } from '../../shared/logs/log-sink.js';
import { DEFAULT_AGENT_LOST_AFTER_SECONDS } from '../../shared/domain/presence.js';
import { DEFAULT_STUCK_AFTER_SECONDS } from '../../shared/domain/stuck.js';
import { isItemTooLarge, itemTooLarge } from '../../shared/state/engine/item-too-large.js';
import { createStore, type Store } from '../../shared/state/engine/store.js';
import { environmentOf, type Environment } from '../environment.js';
import { runAgentRoute } from './agent-routes.js';
import { identifyAgent, isAgentSession, type AgentIdentity } from './agent-identity.js';
import { authenticateUser, type UserAuth } from './auth.js';
import { errorResponse, fromError, json, tooLargeResponse } from './http.js';
import { PresenceRecorder } from './presence.js';
import { runUserRoute } from './user-routes.js';

export interface ApiDeps {
  store: Store;
  charms: CharmStore;
  auth: UserAuth;
  /** How an agent proves which machine's it is (agent-identity.ts). */
  agents: AgentIdentity;
  controller: string;
  stuckAfterSeconds?: number;
  /** An agent silent this long shows as lost (units) or down (machines); default 12 min. */
  agentLostAfterSeconds?: number;
  /**
   * The length of a leadership lease, which the claim's answer tells the agent (the one place of
   * this setting); default DEFAULT_LEASE_SECONDS (shared/domain/leadership.ts). Short in tests.
   */
  leadershipLeaseSeconds?: number;
  logger?: Logger;
  /** Agents' log lines (the agent `log` op) and debug-log's source. */
  logs?: LogSink;
}

type Handler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/** The user operations that only read: GET, with their request in the query string. */

/** A GET's query string as a request object; a repeated parameter becomes a list. */
function queryObject(event: APIGatewayProxyEventV2): Record<string, string | string[]> {
  const value: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(event.rawQueryString ?? '')) {
    const prior = value[k];
    value[k] = prior === undefined ? v : [...(Array.isArray(prior) ? prior : [prior]), v];
  }
  return value;
}

function parseBody(
  event: APIGatewayProxyEventV2,
): { ok: true; value: unknown } | { ok: false; response: APIGatewayProxyStructuredResultV2 } {
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

export function createApiHandler(deps: ApiDeps): Handler {
  const logger = deps.logger ?? new Logger({ serviceName: 'api' });
  const agentLostAfterSeconds = deps.agentLostAfterSeconds ?? DEFAULT_AGENT_LOST_AFTER_SECONDS;
  const user = {
    store: deps.store,
    charms: deps.charms,
    controller: deps.controller,
    stuckAfterSeconds: deps.stuckAfterSeconds ?? DEFAULT_STUCK_AFTER_SECONDS,
    agentLostAfterSeconds,
    ...(deps.logs ? { logs: deps.logs } : {}),
  };
  const presence = new PresenceRecorder(deps.store, agentLostAfterSeconds * 1000, logger);

  /** One agent request from an authenticated machine. */
  async function agentRoute(
    event: APIGatewayProxyEventV2,
    machine: string,
    request: { method: string; path: string; charm?: string; op?: string },
  ): Promise<APIGatewayProxyStructuredResultV2> {
    const { method, path, charm, op: agentOp } = request;
    if (charm !== undefined && method === 'GET') {
      const archive = await deps.charms.get(charm);
      if (!archive) return errorResponse('not-found', `charm archive ${charm} not found`);
      return {
        statusCode: 200,
        headers: { 'content-type': 'application/gzip' },
        body: archive.toString('base64'),
        isBase64Encoded: true,
      };
    }
    if (!agentOp || !Object.hasOwn(agentRequests, agentOp) || method !== 'POST')
      return errorResponse('not-found', `no agent route ${method} ${path}`);
    const op = agentOp as AgentOperation;
    const body = parseBody(event);
    if (!body.ok) return body.response;
    const parsed = agentRequests[op].safeParse(body.value);
    if (!parsed.success) return errorResponse('invalid-argument', `invalid ${op} request: ${describeIssues(parsed.error)}`);
    const ctx = {
      store: deps.store,
      machine,
      ...(deps.leadershipLeaseSeconds !== undefined ? { leadershipLeaseSeconds: deps.leadershipLeaseSeconds } : {}),
      ...(deps.logs ? { logs: deps.logs } : {}),
    };
    return json(200, await runAgentRoute(op, ctx, parsed.data as never));
  }

  async function route(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
    const method = event.requestContext.http.method;
    const path = event.rawPath.replace(/\/+$/, '');
    const agentCharm = path.match(/^\/v1\/agent\/charms\/([0-9a-f]{64})$/)?.[1];
    const agentOp = path.match(/^\/v1\/agent\/([a-z-]+)$/)?.[1];
    const userOp = path.match(/^\/v1\/([a-z-]+)$/)?.[1];

    if (agentCharm || agentOp) {
      const machine = await identifyAgent(event, deps.store, deps.agents);
      if (!machine) return errorResponse('unauthorized', "permission denied: the request is not signed by its machine's agent");
      const response = await agentRoute(event, machine, {
        method,
        path,
        ...(agentCharm ? { charm: agentCharm } : {}),
        ...(agentOp ? { op: agentOp } : {}),
      });
      // Only a request that succeeded records the agent as seen (a refused one changes nothing);
      // the agent's heartbeat is pushed back only by successes too (agent/machine/heartbeat.ts).
      if (response.statusCode === 200) await presence.seen(machine);
      return response;
    }

    if (!userOp || !Object.hasOwn(requests, userOp)) return errorResponse('not-found', `no route ${method} ${path}; see "drover help"`);
    // The agent role may call no user route (its policy says so; this holds whatever IAM allows).
    const caller = authenticateUser(event, deps.auth);
    if (!caller || isAgentSession(caller, deps.agents))
      return errorResponse('unauthorized', 'permission denied: check the credentials in your drover client config');
    const op = userOp as Operation;
    if (method !== methodOf(op)) return errorResponse('invalid-argument', `${op} takes ${methodOf(op)}, not ${method}`);
    const body = parseBody(event);
    if (!body.ok) return body.response;
    const parsed = requests[op].safeParse(body.value);
    if (!parsed.success) return errorResponse('invalid-argument', `invalid ${op} request: ${describeIssues(parsed.error)}`);
    return json(200, await runUserRoute(op, user, parsed.data));
  }

  return async (event) => {
    try {
      return await route(event);
    } catch (e) {
      const mapped = fromError(e);
      if (mapped) return mapped;
      if (isItemTooLarge(e)) return fromError(itemTooLarge(`cannot ${event.rawPath.replace(/^\/v1\//, '')}`))!;
      logger.error('request failed', { path: event.rawPath, error: e as Error });
      return errorResponse('internal', 'internal error in the drover API; the controller log has the details');
    }
  };
}

let lambdaHandler: Handler | undefined;

/** Agents' records go to this function's own log group (stdout), and debug-log reads them there. */
function functionLogSink(logGroupName: string | undefined): LogSink {
  return lambdaLogSink(logGroupName ? { read: cloudWatchLogReader({ client: new CloudWatchLogsClient({}), logGroupName }) } : {});
}

/** The Lambda entry point; built on first use from the function's environment. */
export const handler: Handler = (event) => {
  lambdaHandler ??= fromEnvironment(environmentOf('api function'));
  return lambdaHandler(event);
};

function fromEnvironment(env: Environment): Handler {
  return createApiHandler({
    store: createStore({ table: env.required('TABLE_NAME') }),
    charms: s3CharmStore(new S3Client({}), env.required('CHARM_BUCKET')),
    auth: { kind: 'iam' },
    agents: { kind: 'instance-role', roleName: env.required('AGENT_ROLE_NAME') },
    controller: env.required('CONTROLLER_ID'),
    stuckAfterSeconds: env.seconds('STUCK_AFTER_SECONDS', DEFAULT_STUCK_AFTER_SECONDS),
    agentLostAfterSeconds: env.seconds('AGENT_LOST_AFTER_SECONDS', DEFAULT_AGENT_LOST_AFTER_SECONDS),
    logs: functionLogSink(env.optional('DEBUG_LOG_GROUP')),
  });
}
