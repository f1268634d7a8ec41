// The provisioner's dependencies on AWS, from the function's environment:
//   TABLE_NAME, CONTROLLER_ID, DEPLOYMENT_ID, API_URL, AGENT_BUNDLE_URL  (required)
//   MODEL_NAME (default "default"), AWS_REGION, SUBNET_IDS and SECURITY_GROUP_IDS (comma-separated),
//   INSTANCE_PROFILE_ARN, LAUNCH_TEMPLATE_ID, AGENT_BUNDLE_SHA256, AGENT_BUNDLE_BUCKET and
//   AGENT_BUNDLE_KEY (then instances get a presigned URL instead of AGENT_BUNDLE_URL),
//   PROVISIONER_START_ATTEMPTS, PROVISIONER_RETRY_DELAY_MS (defaults: Juju's 10 × 10 s).
// Agents are given no key: on AWS an agent's identity is its instance role
// (functions/api/agent-identity.ts).
import { EC2Client } from '@aws-sdk/client-ec2';
import { Logger } from '@aws-lambda-powertools/logger';
import { createSqsClient } from '../../shared/messaging/sqs-client.js';
import { Ec2Provider } from '../../shared/provider/ec2/ec2-provider.js';
import { presignedS3Url } from '../../shared/provider/ec2/presigned-url.js';
import type { ProvisionerDeps, ProvisionerLog, ProvisionerPolicy } from '../../shared/provisioner/deps.js';
import { sqsMachineQueues } from '../../shared/provisioner/sqs-machine-queues.js';
import { createStore } from '../../shared/state/store.js';
import { DEPLOYMENT_ID_VARIABLE, SUBNET_IDS_VARIABLE } from './env-names.js';

type Env = Record<string, string | undefined>;

function required(env: Env, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`the provisioner needs ${name} in its environment`);
  return value;
}

const commaSeparated = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function nonNegativeInteger(env: Env, name: string): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, not "${value}"`);
  return n;
}

function powertoolsLog(): ProvisionerLog {
  const logger = new Logger({ serviceName: 'provisioner' });
  return {
    info: (message, details) => logger.info(message, { ...details }),
    warn: (message, details) => logger.warn(message, { ...details }),
    error: (message, details) => logger.error(message, { ...details }),
  };
}

export function provisionerDepsFromEnv(env: Env): ProvisionerDeps {
  const region = env.AWS_REGION ?? 'us-east-1';
  const controllerId = required(env, 'CONTROLLER_ID');
  const policy: Partial<ProvisionerPolicy> = {};
  const startAttempts = nonNegativeInteger(env, 'PROVISIONER_START_ATTEMPTS');
  const retryDelayMs = nonNegativeInteger(env, 'PROVISIONER_RETRY_DELAY_MS');
  if (startAttempts !== undefined) policy.startAttempts = startAttempts;
  if (retryDelayMs !== undefined) policy.retryDelayMs = retryDelayMs;
  return {
    store: createStore({ table: required(env, 'TABLE_NAME'), model: env.MODEL_NAME || 'default', region }),
    provider: new Ec2Provider({
      client: new EC2Client({ region }),
      region,
      deploymentId: required(env, DEPLOYMENT_ID_VARIABLE),
      subnetIds: commaSeparated(env[SUBNET_IDS_VARIABLE]),
      securityGroupIds: commaSeparated(env.SECURITY_GROUP_IDS),
      instanceProfileArn: env.INSTANCE_PROFILE_ARN,
      launchTemplateId: env.LAUNCH_TEMPLATE_ID,
      // The bundle is a private asset: instances get a presigned URL, fresh for each start.
      agentBundleUrl:
        env.AGENT_BUNDLE_BUCKET && env.AGENT_BUNDLE_KEY
          ? presignedS3Url({ bucket: env.AGENT_BUNDLE_BUCKET, key: env.AGENT_BUNDLE_KEY, region })
          : required(env, 'AGENT_BUNDLE_URL'),
      agentBundleSha256: env.AGENT_BUNDLE_SHA256,
    }),
    queues: sqsMachineQueues(createSqsClient({ region }), controllerId),
    controllerId,
    apiUrl: required(env, 'API_URL'),
    policy,
    log: powertoolsLog(),
  };
}
