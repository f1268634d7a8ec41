// The tests `npm run test:mutation` (stryker.config.mjs) runs against each mutant: the files that
// exercise the mutated modules, and no others, so a mutant costs seconds rather than a full run.
// Everything else (timeouts, environment, DynamoDB Local) is the suite's own configuration.
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

export default mergeConfig(
  base,
  defineConfig({
    test: {
      include: [
        // The lifecycle plans (shared/domain/plans): pure functions, tested on their own.
        'test/unit/plans/**/*.test.ts',
        'test/unit/port-ranges.test.ts',
        'test/unit/resources.test.ts',
        'test/unit/state-operations-shape.test.ts',
        // Agent authorization: every agent route called with another machine's entities.
        'test/integration/agent-authorization.test.ts',
        // The hook tools' argument handling.
        'test/unit/agent/hook-tools.test.ts',
        'test/unit/agent/action-tools.test.ts',
        'test/unit/agent/secret-tools.test.ts',
        'test/unit/agent/port-requests.test.ts',
        'test/unit/agent/hook-context-limits.test.ts',
        'test/unit/agent/leadership.test.ts',
        'test/unit/agent/tool-frame.test.ts',
        'test/unit/agent/tool-server.test.ts',
      ],
    },
  }),
);
