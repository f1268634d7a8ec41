// The CDK app, as a function: `infra/app.ts` runs it for the CLI, the tests build it in-process.
// Settings come from context (`cdk deploy -c drover:controllerId=prod`), never from lookups.
import { App, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { acknowledgeNagFindings } from './nag-acknowledgements.js';
import { DEFAULT_STUCK_AFTER_SECONDS } from '#shared/domain/stuck.js';
import { DroverStack, type DroverStackProps } from './stack.js';

export const CONTEXT = {
  controllerId: 'drover:controllerId',
  retainState: 'drover:retainState',
  stuckAfterSeconds: 'drover:stuckAfterSeconds',
  alarmEmail: 'drover:alarmEmail',
  /** A state table made outside the stack (a point-in-time restore), and its stream's ARN. */
  stateTable: 'drover:stateTable',
  stateTableStream: 'drover:stateTableStream',
  /** `true`: encrypt the state table with a customer-managed KMS key the stack makes (infra/state-table.ts). */
  stateTableKms: 'drover:stateTableKms',
  /** Reserved concurrency of the scheduled functions: opt-in, many accounts' quotas refuse it. */
  scheduledReservedConcurrency: 'drover:scheduledReservedConcurrency',
} as const;

export const DEFAULT_CONTROLLER_ID = 'main';

export interface DroverApp {
  app: App;
  stack: DroverStack;
  nag: AwsSolutionsChecks;
  serverless: ServerlessChecks;
}

/** The stack name of a controller: one stack per controller and region. */
export const stackName = (controllerId: string) => `drover-${controllerId}`;

/** `stackProps` override what context says (tests use it to point at a fixture agent). */
export function createDroverApp(props: AppProps = {}, stackProps: Partial<DroverStackProps> = {}): DroverApp {
  const app = new App(props);
  const context = (key: string): string | undefined => {
    const value: unknown = app.node.tryGetContext(key);
    return value === undefined || value === null || value === '' ? undefined : String(value);
  };
  const controllerId = context(CONTEXT.controllerId) ?? DEFAULT_CONTROLLER_ID;
  const stuckAfterSeconds = Number(context(CONTEXT.stuckAfterSeconds) ?? DEFAULT_STUCK_AFTER_SECONDS);
  if (!Number.isInteger(stuckAfterSeconds) || stuckAfterSeconds <= 0)
    throw new Error(`${CONTEXT.stuckAfterSeconds} must be a positive number of seconds`);
  const reserved = context(CONTEXT.scheduledReservedConcurrency);
  const scheduledReservedConcurrency = reserved === undefined ? undefined : Number(reserved);
  if (scheduledReservedConcurrency !== undefined && (!Number.isInteger(scheduledReservedConcurrency) || scheduledReservedConcurrency < 1))
    throw new Error(`${CONTEXT.scheduledReservedConcurrency} must be a positive whole number of executions`);
  const alarmEmail = context(CONTEXT.alarmEmail);
  const stateTable = context(CONTEXT.stateTable);
  const stateTableStream = context(CONTEXT.stateTableStream);
  if ((stateTable === undefined) !== (stateTableStream === undefined))
    throw new Error(`give both ${CONTEXT.stateTable} and ${CONTEXT.stateTableStream} (the table's LatestStreamArn), or neither`);
  const kms = context(CONTEXT.stateTableKms);
  if (kms !== undefined && kms !== 'true' && kms !== 'false') throw new Error(`${CONTEXT.stateTableKms} must be true or false`);
  const stack = new DroverStack(app, stackName(controllerId), {
    controllerId,
    retainState: context(CONTEXT.retainState) !== 'false',
    ...(kms === 'true' ? { stateTableKms: true } : {}),
    stuckAfterSeconds,
    ...(alarmEmail ? { alarmEmail } : {}),
    ...(scheduledReservedConcurrency !== undefined ? { scheduledReservedConcurrency } : {}),
    ...(stateTable && stateTableStream ? { existingState: { tableName: stateTable, streamArn: stateTableStream } } : {}),
    ...stackProps,
  });
  // cdk-nag 3: validation plugins, run at synthesis, the AwsSolutions and Serverless packs; any
  // finding not acknowledged, with its reason, in infra/nag-acknowledgements.ts fails `cdk synth`
  // and the tests.
  const nag = new AwsSolutionsChecks(app);
  const serverless = new ServerlessChecks(app);
  acknowledgeNagFindings(stack);
  Validations.of(app).addPlugins(nag, serverless);
  return { app, stack, nag, serverless };
}
