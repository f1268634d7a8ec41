// The tests `npm run test:mutation` (stryker.config.mjs) runs against each mutant: the unit tests
// that exercise the mutated modules, and no others, so a mutant costs a fraction of a second.
// Everything else (timeouts, environment) is the suite's own configuration. Agent authorization
// has its own (vitest.mutation-authorization.config.ts): its test needs DynamoDB Local, and run
// against every plan mutant it would cost hours.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// The suite's own settings with only these files (mergeConfig would add them to the suite's `include`).
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      // The lifecycle plans (shared/domain/plans): pure functions, tested on their own.
      'test/unit/plans/**/*.test.ts',
      'test/unit/port-ranges.test.ts',
      'test/unit/resources.test.ts',
      'test/unit/state-operations-shape.test.ts',
      // The hook tools' argument handling.
      'test/unit/agent/hook-tools.test.ts',
      'test/unit/agent/action-tools.test.ts',
      'test/unit/agent/secret-tools.test.ts',
      'test/unit/agent/storage-tools.test.ts',
      'test/unit/agent/port-requests.test.ts',
      'test/unit/agent/hook-context-limits.test.ts',
      'test/unit/agent/leadership.test.ts',
      'test/unit/agent/tool-frame.test.ts',
      'test/unit/agent/tool-server.test.ts',
    ],
  },
});
