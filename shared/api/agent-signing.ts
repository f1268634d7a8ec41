// What an agent's signed request carries, for both sides: the agent (agent/api-client.ts) and
// the API that identifies it (functions/api/agent-identity.ts).

/** The signed header in which an agent names its machine. */
export const MACHINE_HEADER = 'x-drover-machine';

/** The key id a local machine agent signs with (its secret is the machine's key). */
export const localAgentKeyId = (machineId: string) => `machine-${machineId}`;
