// The tests stryker.authorization.config.mjs runs against each agent-authorization mutant:
// authorize()'s own test (each kind of thing a route touches, its refusal word for word), and the
// route-table test for a representative part of the routes, one of each kind of thing a route
// touches (the caller's machine, a unit, a relation by key and by id, a task, a charm). Every
// test sets up a model in DynamoDB Local; all routes' tests make the run take hours on a shared
// two-core host.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

const ROUTES = ['machine-dead', 'set-unit-status', 'leave-scope', 'write-settings', 'start-task', 'charm-url'];

// The suite's own settings with only these files (mergeConfig would add them to the suite's `include`).
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/integration/agent-authorization.test.ts', 'test/integration/authorize.test.ts'],
    testNamePattern: new RegExp(`(^authorize |has a route for every agent request schema|(^| )(${ROUTES.join('|')})( declares|$))`),
  },
});
