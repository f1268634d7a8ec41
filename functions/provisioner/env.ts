// The provisioner's dependencies on AWS, from the function's environment (functions/environment.ts
// says what each variable holds): TABLE_NAME, CONTROLLER_ID, DEPLOYMENT_ID, API_URL and
// AGENT_BUNDLE_URL are required, except that with AGENT_BUNDLE_BUCKET and AGENT_BUNDLE_KEY
// instances read the bundle from S3 with their own role instead.
// Agents are given no key: on AWS an agent's identity is its instance role
// (functions/api/agent-identity.ts).
import { EC2Client } from '@aws-sdk/client-ec2';
import { Logger } from '@aws-lambda-powertools/logger';
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import { Ec2Provider } from '#shared/provider/ec2/ec2-provider.js';
import type { ProvisionerDeps, ProvisionerLog, ProvisionerPolicy } from '#shared/provisioner/deps.js';
import { sqsMachineQueues } from '#shared/provisioner/sqs-machine-queues.js';
import { readStorageClaims } from '#shared/provisioner/storage-claims.js';
import { createStore } from '#shared/state/engine/store.js';
import { environmentOf } from '../environment.js';

function powertoolsLog(): ProvisionerLog {
  const logger = new Logger({ serviceName: 'provisioner' });
  return {
    info: (message, details) => logger.info(message, { ...details }),
    warn: (message, details) => logger.warn(message, { ...details }),
    error: (message, details) => logger.error(message, { ...details }),
  };
}

export function provisionerDepsFromEnv(variables: Record<string, string | undefined>): ProvisionerDeps {
  const env = environmentOf('provisioner', variables);
  const region = env.optional('AWS_REGION') ?? 'us-east-1';
  const controllerId = env.required('CONTROLLER_ID');
  const policy: Partial<ProvisionerPolicy> = {};
  const startAttempts = env.count('PROVISIONER_START_ATTEMPTS');
  const retryDelayMs = env.count('PROVISIONER_RETRY_DELAY_MS');
  if (startAttempts !== undefined) policy.startAttempts = startAttempts;
  if (retryDelayMs !== undefined) policy.retryDelayMs = retryDelayMs;
  const bundleBucket = env.optional('AGENT_BUNDLE_BUCKET');
  const bundleKey = env.optional('AGENT_BUNDLE_KEY');
  return {
    // Any model's store: the provisioner serves every model, each through its own (deps.ts, provisionerForModel).
    store: createStore({ table: env.required('TABLE_NAME'), region }),
    provider: new Ec2Provider({
      client: new EC2Client({ region }),
      region,
      deploymentId: env.required('DEPLOYMENT_ID'),
      subnetIds: env.list('SUBNET_IDS'),
      securityGroupIds: env.list('SECURITY_GROUP_IDS'),
      vpcId: env.optional('VPC_ID'),
      instanceProfileArn: env.optional('INSTANCE_PROFILE_ARN'),
      launchTemplateId: env.optional('LAUNCH_TEMPLATE_ID'),
      // The bundle is a private asset: instances read it with their own role (user-data.ts).
      agentBundle: bundleBucket && bundleKey ? { bucket: bundleBucket, key: bundleKey } : { url: env.required('AGENT_BUNDLE_URL') },
      agentBundleSha256: env.optional('AGENT_BUNDLE_SHA256'),
    }),
    queues: sqsMachineQueues(createSqsClient({ region }), controllerId),
    controllerId,
    apiUrl: env.required('API_URL'),
    policy,
    log: powertoolsLog(),
    // EC2 has volumes: the full reconcile reaps orphans among them from every model's storage.
    storageClaims: readStorageClaims,
  };
}
