// Which machine's agent is calling. Every agent request is SigV4-signed and names its machine in
// the signed `x-drover-machine` header; what proves the claim differs by where the controller
// runs, and nothing else about agents does:
//
// - On AWS, API Gateway's IAM authorization has checked the signature. An instance role's
//   credentials carry the instance id as their role session name
//   (arn:aws:sts::<account>:assumed-role/<agent role>/i-0abc...), and only EC2 can assume the
//   agent role, so the caller is that instance: the claimed machine must be the one whose
//   instance it is. Nothing secret is handed to an instance.
//   https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/iam-roles-for-amazon-ec2.html
// - On the local controller, each machine has a key of its own, derived for its current
//   provisioning attempt (agentKeyFor in the provisioner's start-request.ts) and handed to its
//   agent on a pipe; the key id is `machine-<id>`, and the signature is checked here as API
//   Gateway would (functions/api/verify-signature.ts). retry-provisioning makes a new attempt, and so revokes the old key.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { localAgentKeyId, MACHINE_HEADER } from '../../shared/api/agent-signing.js';
import { MACHINE_ID } from '../../shared/api/fields.js';
import type { AgentCredentials } from '../../shared/provisioner/agent-credentials.js';
import { verifyAgentCredential } from '../../shared/state/operations/agent-credential.js';
import { getMachine } from '../../shared/state/engine/reads.js';
import type { Store } from '../../shared/state/engine/store.js';
import { verifySignature } from './verify-signature.js';

export type AgentIdentity =
  /** On AWS: callers are instances with the agent role, whose name this is. */
  | { kind: 'instance-role'; roleName: string }
  /** On the local controller: callers sign with their machine's key. */
  | { kind: 'machine-keys'; keys: AgentCredentials };

const ASSUMED_ROLE = /^arn:aws[a-z-]*:sts::\d{12}:assumed-role\/([\w+=,.@-]{1,64})\/(i-[0-9a-f]{8,17})$/;

/** Whether `userArn` is a session of the agent role: an agent, which no user route serves. */
export function isAgentSession(userArn: string | undefined, identity: AgentIdentity): boolean {
  return identity.kind === 'instance-role' && ASSUMED_ROLE.exec(userArn ?? '')?.[1] === identity.roleName;
}

/** The machine id whose agent is calling, or undefined when the request does not prove it. */
export async function identifyAgent(event: APIGatewayProxyEventV2, store: Store, identity: AgentIdentity): Promise<string | undefined> {
  const claimed = event.headers?.[MACHINE_HEADER] ?? '';
  if (!MACHINE_ID.test(claimed)) return undefined;
  if (identity.kind === 'instance-role') {
    const iam = (event.requestContext as { authorizer?: { iam?: { userArn?: string } } }).authorizer?.iam;
    const [, role, instanceId] = ASSUMED_ROLE.exec(iam?.userArn ?? '') ?? [];
    if (role !== identity.roleName || instanceId === undefined) return undefined;
    const machine = await getMachine(store, claimed);
    return machine?.instanceId === instanceId ? claimed : undefined;
  }
  const signed = await verifySignature(
    event,
    async (keyId) => {
      if (keyId !== localAgentKeyId(claimed)) return undefined;
      const machine = await getMachine(store, claimed);
      if (!machine) return undefined;
      const key = await identity.keys.forAttempt({ model: store.model, machineId: claimed, attempt: machine.provisioningAttempt });
      // The key must be the one issued for the machine's current attempt, and not yet revoked.
      return verifyAgentCredential(machine.agentCredentialHash, key) ? key : undefined;
    },
    { mustSign: [MACHINE_HEADER] },
  );
  return signed ? claimed : undefined;
}
