// The tags on everything the ec2 provider makes: instances and volumes (ec2-provider.ts) and the
// applications' security groups (application-groups.ts). IAM grants the provisioner its EC2
// actions on resources carrying this controller's tag only (infra/machines.ts).
export const CONTROLLER_TAG = 'drover:controller';
export const MACHINE_TAG = 'drover:machine';
/**
 * The key of the machine's model, on instances of every model but `default`: an instance without
 * it is a `default` machine's, as every instance started before there were many models is.
 */
export const MODEL_TAG = 'drover:model';
/** Which deployment of the controller made the resource (Ec2ProviderOptions.deploymentId). */
export const DEPLOYMENT_TAG = 'drover:deployment';
/** The storage instance (`<name>/<n>`) a volume was made for (volumes.ts); only storage volumes carry it. */
export const STORAGE_TAG = 'drover:storage';
