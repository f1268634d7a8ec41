// Which machine's agent is calling. Every agent request is SigV4-signed and names its machine in
// the signed `x-drover-machine` header and its machine's model in the signed `x-drover-model`
// header (a model's key; an agent started before there were many models sends none and is taken
// for one of `default`). Machine ids repeat across models, so the claim is checked in the claimed
// model, which must exist, and its store is what the agent's request works against. What proves
// the claim differs by where the controller runs, and nothing else about agents does:
//
// - On AWS, API Gateway's IAM authorization has checked the signature. An instance role's
//   credentials carry the instance id as their role session name
//   (arn:aws:sts::<account>:assumed-role/<agent role>/i-0abc...), and only EC2 can assume the
//   agent role, so the caller is that instance: the claimed machine, in the claimed model, must be
//   the one whose instance it is. Nothing secret is handed to an instance.
//   https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/iam-roles-for-amazon-ec2.html
// - On the local controller, each machine has a key of its own, derived for its current
//   model and provisioning attempt (agentKeyFor in the provisioner's start-request.ts) and handed to its
//   agent on a pipe; the key id is `machine-<id>`, and the signature is checked here as API
//   Gateway would (functions/api/verify-signature.ts). retry-provisioning makes a new attempt, and so revokes the old key.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { localAgentKeyId, MACHINE_HEADER, MODEL_HEADER } from '#shared/api/agent-signing.js';
import { MACHINE_ID, MODEL_KEY } from '#shared/api/fields.js';
import type { Machine } from '#shared/domain/entities.js';
import { DEFAULT_MODEL_KEY } from '#shared/domain/models.js';
import type { AgentCredentials } from '#shared/provisioner/agent-credentials.js';
import { verifyAgentCredential } from '#shared/state/operations/agent-credential.js';
import type { EntityRef } from '#shared/domain/plan.js';
import { getModel } from '#shared/state/engine/reads.js';
import { storeForModel, type Store } from '#shared/state/engine/store.js';
import { ItemsRead } from './agent-read-ahead.js';
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

/** The agent that proved who it is: its machine's id, and the store of its machine's model. */
export interface IdentifiedAgent {
  machine: string;
  store: Store;
  /** The machine's item as this request read it to check the caller: routes need not read it again. */
  machineItem: Machine;
  /** What was read with the machine for the route's authorization (agent-read-ahead.ts). */
  reads: ItemsRead;
}

/**
 * Models this process has found to exist, by table and key: an agent request then costs the one
 * read of its machine, as before there were many models. Remembering is safe: the machine itself
 * is read on every request, and its agent is let in only while it is there. Bounded: forgetting
 * costs one read.
 */
const existingModels = new Set<string>();
const MAX_REMEMBERED_MODELS = 10_000;

async function modelExists(store: Store): Promise<boolean> {
  const remembered = `${store.table}\u0000${store.model}`;
  if (existingModels.has(remembered)) return true;
  if (!(await getModel(store))) return false;
  if (existingModels.size >= MAX_REMEMBERED_MODELS) existingModels.clear();
  existingModels.add(remembered);
  return true;
}

/**
 * The machine of the claimed model, if that model exists (an agent of a removed model is no one's),
 * read with `alsoRead`, what the route will authorize against.
 */
async function claimedMachine(store: Store, machineId: string, alsoRead: EntityRef[]) {
  const [exists, reads] = await Promise.all([modelExists(store), ItemsRead.of(store, [{ kind: 'machine', id: machineId }, ...alsoRead])]);
  return { machine: exists ? await reads.machine(machineId) : undefined, reads };
}

/**
 * The machine whose agent is calling, with its model's store; undefined when the request does not
 * prove it. `alsoRead` is read in the same request as the machine (agent-read-ahead.ts).
 */
export async function identifyAgent(
  event: APIGatewayProxyEventV2,
  store: Store,
  identity: AgentIdentity,
  alsoRead: EntityRef[] = [],
): Promise<IdentifiedAgent | undefined> {
  const claimed = event.headers?.[MACHINE_HEADER] ?? '';
  const modelHeader = event.headers?.[MODEL_HEADER];
  const model = modelHeader ?? DEFAULT_MODEL_KEY;
  if (!MACHINE_ID.test(claimed) || !MODEL_KEY.test(model)) return undefined;
  const modelStore = storeForModel(store, model);
  if (identity.kind === 'instance-role') {
    const iam = (event.requestContext as { authorizer?: { iam?: { userArn?: string } } }).authorizer?.iam;
    const [, role, instanceId] = ASSUMED_ROLE.exec(iam?.userArn ?? '') ?? [];
    if (role !== identity.roleName || instanceId === undefined) return undefined;
    // Machine 0 of another model has another instance: an instance is one model's machine only.
    const { machine, reads } = await claimedMachine(modelStore, claimed, alsoRead);
    return machine && machine.instanceId === instanceId ? { machine: claimed, store: modelStore, machineItem: machine, reads } : undefined;
  }
  let machineItem: Machine | undefined;
  let reads: ItemsRead | undefined;
  const signed = await verifySignature(
    event,
    async (keyId) => {
      if (keyId !== localAgentKeyId(claimed)) return undefined;
      const claim = await claimedMachine(modelStore, claimed, alsoRead);
      const machine = claim.machine;
      if (!machine) return undefined;
      machineItem = machine;
      reads = claim.reads;
      // Derived for the model too: machine 0 of another model has another key.
      const key = await identity.keys.forAttempt({ model, machineId: claimed, attempt: machine.provisioningAttempt });
      // The key must be the one issued for the machine's current attempt, and not yet revoked.
      return verifyAgentCredential(machine.agentCredentialHash, key) ? key : undefined;
    },
    // A model named must be signed, or it could be changed in flight; one not named means `default`.
    { mustSign: modelHeader === undefined ? [MACHINE_HEADER] : [MACHINE_HEADER, MODEL_HEADER] },
  );
  return signed && machineItem && reads ? { machine: claimed, store: modelStore, machineItem, reads } : undefined;
}
