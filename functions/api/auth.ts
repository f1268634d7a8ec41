// Which user is calling: on AWS, API Gateway has already checked the IAM signature (SigV4) and
// the handler reads the caller from the request context; locally, the token made at bootstrap.
// Agents are identified by agent-identity.ts.
import { timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

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
