// The access policy every drover queue carries: refuse any request not made over TLS. It is the
// statement CDK's `enforceSSL` gives the dead-letter queue in infra/machines.ts (the stack test
// compares the two), so the queues made at run time are held to the same rule as the one the
// stack makes. See https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-security-best-practices.html
// ("Enforce encryption of data in transit").

/** The deny statement: every action, by anyone, when the request did not come over TLS. */
export function tlsOnlyStatement(queueArn: string) {
  return {
    Action: 'sqs:*',
    Condition: { Bool: { 'aws:SecureTransport': 'false' } },
    Effect: 'Deny',
    Principal: { AWS: '*' },
    Resource: queueArn,
  };
}

/** The queue's `Policy` attribute: a TLS-only policy document, as SQS takes it (a JSON string). */
export function tlsOnlyQueuePolicy(queueArn: string): string {
  return JSON.stringify({ Version: '2012-10-17', Statement: [tlsOnlyStatement(queueArn)] });
}
