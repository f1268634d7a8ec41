// The agent API's requests. Every one names the unit or machine it acts on; the API checks that
// it is the calling agent's own machine, or a unit on it (functions/api/agent-routes.ts).
import { z } from 'zod';

const unit = z.string().min(1).max(200);
const status = z.strictObject({ current: z.string().min(1).max(50), message: z.string().max(1000).optional() });

export const agentRequests = {
  /** The machine, its units and what their hooks may see: the agent's whole view. */
  view: z.strictObject({}),
  'set-unit-status': z.strictObject({ unit, agent: status.optional(), workload: status.optional() }),
  'set-machine-status': z.strictObject({ status }),
  'enter-scope': z.strictObject({ unit, relation: z.string().min(1), settings: z.record(z.string(), z.string()) }),
  'leave-scope': z.strictObject({ unit, relation: z.string().min(1) }),
  'read-settings': z.strictObject({ unit, relationId: z.int().min(0), of: unit }),
  'write-settings': z.strictObject({ unit, relationId: z.int().min(0), changes: z.record(z.string(), z.string()) }),
  'destroy-unit': z.strictObject({ unit }),
  'subordinate-dying': z.strictObject({ unit }),
  'unit-dead': z.strictObject({ unit }),
  'remove-unit': z.strictObject({ unit }),
  'clear-resolved': z.strictObject({ unit }),
  'machine-dead': z.strictObject({}),
} as const;

export type AgentOperation = keyof typeof agentRequests;
export type AgentRequestOf<O extends AgentOperation> = z.infer<(typeof agentRequests)[O]>;
