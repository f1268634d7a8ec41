// The environment of drover's Lambda functions, in one place. The stack writes it (infra/stack.ts,
// infra/functions.ts, infra/machines.ts, infra/api.ts) as values of type FunctionEnvironment, so
// a misspelt name does not compile; the functions read it through `environmentOf`, and a
// required variable that is missing is an error naming it, not an empty string that fails later
// somewhere else.

/** Every variable a drover function (or the libraries it runs) reads, and what it holds. */
export const VARIABLES = {
  TABLE_NAME: 'the state table',
  CONTROLLER_ID: "this controller's id: machine queue names, instance tags",
  DEPLOYMENT_ID: "this deployment of the controller (the stack id's UUID): in every ClientToken and instance tag",
  API_URL: 'the API address agents are given',
  AGENT_BUNDLE_URL: 'where instances download the machine agent, when it is not a private asset',
  AGENT_BUNDLE_SHA256: "the agent bundle's checksum, checked by the instance",
  AGENT_BUNDLE_BUCKET: "the agent bundle asset's bucket (instances read it with their role)",
  AGENT_BUNDLE_KEY: "the agent bundle asset's key",
  SUBNET_IDS: 'the public subnets machines spread over, one per availability zone, comma-separated',
  SECURITY_GROUP_IDS: 'the security groups of every machine, comma-separated',
  VPC_ID: "the machines' VPC, where each exposed application gets its security group",
  INSTANCE_PROFILE_ARN: 'the instance profile of every machine (the agent role)',
  LAUNCH_TEMPLATE_ID: 'the launch template of every machine',
  PROVISIONER_START_ATTEMPTS: "attempts at starting an instance before the machine shows an error (Juju's 10)",
  PROVISIONER_RETRY_DELAY_MS: "the pause between start attempts (Juju's 10 s)",
  CHARM_BUCKET: 'the charm store',
  DEBUG_LOG_GROUP: "the api function's own log group, where debug-log reads the agents' records",
  AGENT_ROLE_NAME: 'the agent role: a caller with a session of it is an agent (functions/api/agent-identity.ts)',
  STUCK_AFTER_SECONDS: 'how long an entity may be Dying before `stuck` and the watchdog report it',
  AGENT_LOST_AFTER_SECONDS: 'how long an agent may be silent before status shows it lost',
  DYNAMODB_ENDPOINT: 'a DynamoDB endpoint other than AWS (DynamoDB Local)',
  SQS_ENDPOINT: 'an SQS endpoint other than AWS',
  AWS_REGION: 'set by Lambda',
  POWERTOOLS_SERVICE_NAME: "read by Powertools: the function's service dimension and log field",
  POWERTOOLS_METRICS_NAMESPACE: 'read by Powertools: the metrics namespace',
  POWERTOOLS_LOG_LEVEL: 'read by Powertools',
  NODE_OPTIONS: 'read by Node.js',
} as const;

export type VariableName = keyof typeof VARIABLES;

/** What the stack writes into a function's environment. */
export type FunctionEnvironment = Partial<Record<VariableName, string>>;

export interface Environment {
  /** The variable's value; throws, naming it, when it is missing or empty. */
  required(name: VariableName): string;
  optional(name: VariableName): string | undefined;
  /** A comma-separated list, blanks dropped. */
  list(name: VariableName): string[];
  /** A whole number of at least 0, or undefined when unset. */
  count(name: VariableName): number | undefined;
  /** A positive number of seconds, or `fallback` when unset. */
  seconds(name: VariableName, fallback: number): number;
}

/** The environment `reader` (a function's name, for errors) reads from `env`. */
export function environmentOf(reader: string, env: Record<string, string | undefined> = process.env): Environment {
  const optional = (name: VariableName) => (env[name] === '' ? undefined : env[name]);
  const invalid = (name: VariableName, value: string, what: string) =>
    new Error(`the ${reader} needs ${name} to be ${what}, not "${value}" (${VARIABLES[name]})`);
  return {
    optional,
    required(name) {
      const value = optional(name);
      if (value === undefined) throw new Error(`the ${reader} needs ${name} in its environment (${VARIABLES[name]})`);
      return value;
    },
    list: (name) =>
      (optional(name) ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    count(name) {
      const value = optional(name);
      if (value === undefined) return undefined;
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0) throw invalid(name, value, 'a whole number of at least 0');
      return n;
    },
    seconds(name, fallback) {
      const value = optional(name);
      if (value === undefined) return fallback;
      const n = Number(value);
      if (!(n > 0)) throw invalid(name, value, 'a positive number of seconds');
      return n;
    },
  };
}
