// cdk-nag's Serverless pack, beside AwsSolutions (infra/drover-app.ts): its findings that drover
// keeps on purpose, each with its reason, all in this one file. Acknowledged on the stack: each
// reason holds for every resource the rule names (test/infra/stack.test.ts checks that each rule
// here still has a finding, so none outlives its cause).
import { Validations, type Stack } from 'aws-cdk-lib';

export const SERVERLESS_ACKNOWLEDGEMENTS: Record<string, string> = {
  'Serverless-LambdaLatestVersion':
    'drover targets the Node.js 22 Lambda runtime on purpose (the runtime its bundles are built for); upgrades are deliberate.',
  'Serverless-LambdaTracing':
    'X-Ray tracing bills per trace and is not needed to find what is stuck: the watchdog, the saved Logs Insights queries and the alarms are.',
  'Serverless-LambdaDLQ':
    'No function needs a dead-letter queue of its own: the stream consumers have an on-failure destination on their mappings, the ' +
    'scheduled functions an asynchronous failure destination (the scheduled failure queue), and the api and tear-down functions are ' +
    'invoked synchronously, their callers seeing the failure.',
  'Serverless-EventBusDLQ':
    'A scheduled rule that cannot invoke its function loses one run, which the next run covers; the function itself sends its ' +
    'failed or too-old runs to the scheduled failure queue, which alarms.',
  'Serverless-SQSRedrivePolicy':
    'These queues are themselves where failures end (the stream failure queue, the hint dead-letter queue, the scheduled failure ' +
    'queue): a dead-letter queue of a dead-letter queue would only move the messages a human must read.',
  'Serverless-SNSRedrivePolicy':
    'The alarm topic has one email subscription; SNS retries email delivery itself, and the alarm stays in ALARM in CloudWatch ' +
    'whether or not the email arrives.',
};

export function acknowledgeServerlessFindings(stack: Stack): void {
  for (const [id, reason] of Object.entries(SERVERLESS_ACKNOWLEDGEMENTS)) Validations.of(stack).acknowledge({ id, reason });
}
