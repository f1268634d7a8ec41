// What an agent's signed request carries, for both sides: the agent (agent/api-client.ts) and
// the API that identifies it (functions/api/agent-identity.ts).

/** The signed header in which an agent names its machine. */
export const MACHINE_HEADER = 'x-drover-machine';

/**
 * The signed header in which an agent names its machine's model (the model's key): machine ids
 * repeat across models. An agent that sends none is taken for one of the `default` model, as every
 * agent started before there were many models is.
 */
export const MODEL_HEADER = 'x-drover-model';

/** The key id a local machine agent signs with (its secret is the machine's key). */
export const localAgentKeyId = (machineId: string) => `machine-${machineId}`;
