// Mutation testing of agent authorization (docs/testing.md), the second half of
// `npm run test:mutation`: its test needs DynamoDB Local, so it runs on its own, against only
// that test (vitest.mutation-authorization.config.ts).
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { configFile: 'vitest.mutation-authorization.config.ts', related: false },
  mutate: ['functions/api/agent-authorization.ts'],
  // Its first run of the tests, on which the rest is planned, can pass Stryker's default 5 minutes
  // on a busy host (with every route's tests it did here).
  dryRunTimeoutMinutes: 20,
  jsonReporter: { fileName: 'reports/mutation/agent-authorization.json' },
  // The score recorded in docs/testing.md without its timeouts, rounded down: a fall fails the run.
  thresholds: { ...base.thresholds, break: 88 },
};
