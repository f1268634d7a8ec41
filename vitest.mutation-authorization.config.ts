// The test stryker.authorization.config.mjs runs against each agent-authorization mutant: every
// agent route called with another machine's entities (it needs DynamoDB Local).
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// The suite's own settings with only this file (mergeConfig would add it to the suite's `include`).
export default defineConfig({ ...base, test: { ...base.test, include: ['test/integration/agent-authorization.test.ts'] } });
