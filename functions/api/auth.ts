// Who is calling. Users: on AWS, API Gateway has already checked the IAM signature (SigV4) and
// the handler reads the caller from the request context; locally, the token made at bootstrap.
// Agents: `Authorization: Bearer machine-<id>:<credential>`, checked against the hash the
// provisioner stored on that machine — so an agent can only ever act as its own machine.
import { timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { AGENT_TOKEN } from '../../shared/api/fields.js';
import { verifyAgentCredential } from '../../shared/state/agent-credential.js';
import { getMachine } from '../../shared/state/reads.js';
import type { Store } from '../../shared/state/store.js';

export type UserAuth = { kind: 'iam' } | { kind: 'token'; token: string };

function bearer(event: APIGatewayProxyEventV2): string | undefined {
  const header = event.headers?.authorization ?? event.headers?.Authorization;
  const match = header?.match(/^Bearer\s+(.+)$/i);
  return match?.[1];
}

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The user's identity, or undefined when the request is not a user's. */
export function authenticateUser(event: APIGatewayProxyEventV2, auth: UserAuth): string | undefined {
  if (auth.kind === 'iam') {
    const iam = (event.requestContext as { authorizer?: { iam?: { userArn?: string } } }).authorizer?.iam;
    return iam?.userArn;
  }
  const token = bearer(event);
  return token !== undefined && same(token, auth.token) ? 'local-admin' : undefined;
}

/** The machine id whose agent is calling, or undefined when the credential does not check out. */
export async function authenticateAgent(event: APIGatewayProxyEventV2, store: Store): Promise<string | undefined> {
  const match = bearer(event)?.match(AGENT_TOKEN);
  if (!match) return undefined;
  const [, machineId, credential] = match as [string, string, string];
  const machine = await getMachine(store, machineId);
  return machine && verifyAgentCredential(machine.agentCredentialHash, credential) ? machineId : undefined;
}
