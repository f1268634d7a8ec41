// The API function: API Gateway HTTP API (payload v2) events in, JSON out. Thin: parse and
// validate the request (zod), authenticate, call one route, map errors (functions/api/http.ts).
import type { StorageProvider } from '#shared/domain/storage.js';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { Logger } from '@aws-lambda-powertools/logger';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { S3Client } from '@aws-sdk/client-s3';
import { agentOperations } from '#shared/api/agent-requests.js';
import { userOperations } from '#shared/api/requests.js';
import { type CharmStore } from '#shared/charmstore/charm-store.js';
import { s3CharmStore } from '#shared/charmstore/s3-charm-store.js';
import { cloudWatchLogReader } from '#shared/logs/cloudwatch-log-reader.js';
import { lambdaLogSink } from '#shared/logs/lambda-log-sink.js';
import type { LogSink } from '#shared/logs/log-sink.js';
import { DEFAULT_AGENT_LOST_AFTER_SECONDS } from '#shared/domain/presence.js';
import { DEFAULT_STUCK_AFTER_SECONDS } from '#shared/domain/stuck.js';
import { isItemTooLarge, itemTooLarge } from '#shared/state/engine/item-too-large.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { bootstrapModel } from '#shared/state/operations/model.js';
import { environmentOf, type Environment } from '../environment.js';
import { readAheadOf, runAgentRoute } from './agent-routes.js';
import { identifyAgent, isAgentSession, type AgentIdentity, type IdentifiedAgent } from './agent-identity.js';
import { authenticateUser, type UserAuth } from './auth.js';
import { dispatch, operationNamed } from './dispatch.js';
import { errorResponse, fromError } from './http.js';
import { PresenceRecorder } from './presence.js';
import { storeOfRequest } from './request-model.js';
import { runUserRoute } from './user-routes.js';
import { DEFAULT_CHARMHUB_SETTINGS, type CharmhubSettings } from './charmhub-charm.js';

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
  /** How deploy and refresh reach Charmhub (bounds; tests shorten them). */
  charmhub?: CharmhubSettings;
  /** Which storage pools models have: `ec2` on AWS (ebs and rootfs), `local` (rootfs) by default. */
  storageProvider?: StorageProvider;
}

type Handler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

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
    ...(deps.charmhub ? { charmhub: deps.charmhub } : {}),
    storageProvider: deps.storageProvider ?? 'local',
  };
  const presence = new PresenceRecorder(deps.store, agentLostAfterSeconds * 1000, logger);

  /** One agent request from an authenticated machine. */
  async function agentRoute(
    event: APIGatewayProxyEventV2,
    { machine, store, machineItem, reads }: IdentifiedAgent,
    request: { method: string; path: string; op: string },
  ): Promise<APIGatewayProxyStructuredResultV2> {
    const { method, path, op: agentOp } = request;
    const op = operationNamed(agentOperations, agentOp);
    if (!op) return errorResponse('not-found', `no agent route ${method} ${path}`);
    const ctx = {
      // The agent's own model (agent-identity.ts), whatever model a user request would name.
      store,
      charms: deps.charms,
      machine,
      callerMachine: machineItem,
      reads,
      ...(deps.leadershipLeaseSeconds !== undefined ? { leadershipLeaseSeconds: deps.leadershipLeaseSeconds } : {}),
      ...(deps.logs ? { logs: deps.logs } : {}),
      storageProvider: deps.storageProvider ?? 'local',
    };
    return dispatch(agentOperations, op, event, (o, request) => runAgentRoute(o, ctx, request));
  }

  async function route(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
    const method = event.requestContext.http.method;
    const path = event.rawPath.replace(/\/+$/, '');
    const agentOp = path.match(/^\/v1\/agent\/([a-z-]+)$/)?.[1];
    const userOp = path.match(/^\/v1\/([a-z-]+)$/)?.[1];

    if (agentOp) {
      const known = operationNamed(agentOperations, agentOp);
      const agent = await identifyAgent(event, deps.store, deps.agents, known ? readAheadOf(known, event) : []);
      if (!agent) return errorResponse('unauthorized', "permission denied: the request is not signed by its machine's agent");
      const response = await agentRoute(event, agent, { method, path, op: agentOp });
      // Only a request that succeeded records the agent as seen (a refused one changes nothing);
      // the agent's heartbeat is pushed back only by successes too (agent/machine/heartbeat.ts).
      if (response.statusCode === 200) await presence.seen(agent.machine, agent.store);
      return response;
    }

    const op = operationNamed(userOperations, userOp);
    if (!op) return errorResponse('not-found', `no route ${method} ${path}; see "drover help"`);
    // The agent role may call no user route (its policy says so; this holds whatever IAM allows).
    const caller = authenticateUser(event, deps.auth);
    if (!caller || isAgentSession(caller, deps.agents))
      return errorResponse('unauthorized', 'permission denied: check the credentials in your drover client config');
    const store = await storeOfRequest(deps.store, event, userOperations[op].scope);
    return dispatch(userOperations, op, event, (o, request) => runUserRoute(o, { ...user, store }, request));
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

/**
 * On AWS a deploy from Charmhub resolves and downloads within the api function's 29 seconds (API
 * Gateway's own bound): each step gets its share, and a slower store is a clear error, not a
 * timed-out request whose charm half arrived.
 */
const AWS_CHARMHUB_SETTINGS: CharmhubSettings = {
  ...DEFAULT_CHARMHUB_SETTINGS,
  requestTimeoutMs: 5_000,
  charm: { ...DEFAULT_CHARMHUB_SETTINGS.charm, timeoutMs: 15_000 },
  resource: { ...DEFAULT_CHARMHUB_SETTINGS.resource, timeoutMs: 10_000 },
};

/** The Lambda entry point; built on first use from the function's environment. */
export const handler: Handler = (event) => {
  lambdaHandler ??= fromEnvironment(environmentOf('api function'));
  return lambdaHandler(event);
};

function fromEnvironment(env: Environment): Handler {
  const store = createStore({ table: env.required('TABLE_NAME') });
  const api = createApiHandler({
    store,
    charms: s3CharmStore(new S3Client({}), env.required('CHARM_BUCKET')),
    auth: { kind: 'iam' },
    agents: { kind: 'instance-role', roleName: env.required('AGENT_ROLE_NAME') },
    controller: env.required('CONTROLLER_ID'),
    stuckAfterSeconds: env.seconds('STUCK_AFTER_SECONDS', DEFAULT_STUCK_AFTER_SECONDS),
    agentLostAfterSeconds: env.seconds('AGENT_LOST_AFTER_SECONDS', DEFAULT_AGENT_LOST_AFTER_SECONDS),
    logs: functionLogSink(env.optional('DEBUG_LOG_GROUP')),
    charmhub: AWS_CHARMHUB_SETTINGS,
    storageProvider: 'ec2',
  });
  let bootstrapped: Promise<void> | undefined;
  return async (event) => {
    // An AWS controller has no bootstrap step of its own (cdk deploy makes the table empty): the
    // API makes bootstrap's model once per function instance. A failed attempt is tried again.
    bootstrapped ??= bootstrapModel(store).catch((e: unknown) => {
      bootstrapped = undefined;
      throw e;
    });
    await bootstrapped;
    return api(event);
  };
}
