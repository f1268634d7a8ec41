// Names of provisioner environment variables that the stack sets (infra/machines.ts) and the
// provisioner reads (env.ts): one place for each, so the two cannot drift apart.

/** This deployment of the controller (Ec2ProviderOptions.deploymentId): the stack id's UUID. */
export const DEPLOYMENT_ID_VARIABLE = 'DEPLOYMENT_ID';
/** The public subnets machines spread over, one per availability zone, comma-separated. */
export const SUBNET_IDS_VARIABLE = 'SUBNET_IDS';
