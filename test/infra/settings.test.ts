// Deploy-time settings (`cdk deploy -c drover:...`) that change the template: read from context
// by infra/drover-app.ts, refused when malformed. Bundling is skipped: the code does not matter.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONTEXT, createDroverApp } from '../../infra/drover-app.js';
import { FUNCTION_SPECS, REPO_ROOT, type FunctionKey } from '../../infra/functions.js';

type Json = Record<string, any>;
const workDir = mkdtempSync(join(tmpdir(), 'drover-settings-test-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
// A stand-in agent: its bundle does not change what is measured here.
const agentEntry = join(workDir, 'agent', 'main.ts');
mkdirSync(join(workDir, 'agent'), { recursive: true });
writeFileSync(agentEntry, "console.log('stand-in machine agent');\n");

const cdkContext = () => JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')).context as Json;
const appWith = (settings: Record<string, string>) =>
  createDroverApp(
    { outdir: join(workDir, String(Math.random())), context: { ...cdkContext(), 'aws:cdk:bundling-stacks': [], ...settings } },
    { agentEntry },
  );

describe('drover:scheduledReservedConcurrency', () => {
  it('reserves concurrency for the scheduled functions only, and only when asked', () => {
    const { app, stack } = appWith({ [CONTEXT.scheduledReservedConcurrency]: '1' });
    const resources = app.synth().getStackByName(stack.stackName).template.Resources as Record<string, Json>;
    const reserved = Object.fromEntries(
      (Object.keys(FUNCTION_SPECS) as FunctionKey[]).map((key) => {
        const logicalId = stack.getLogicalId(stack.functions.functions[key].node.defaultChild as never);
        return [key, resources[logicalId]!.Properties.ReservedConcurrentExecutions];
      }),
    );
    expect(reserved).toEqual({
      api: undefined,
      provisioner: undefined,
      provisionerReconcile: 1,
      changes: undefined,
      cleanupSweep: 1,
      watchdog: 1,
      teardown: undefined,
    });
  }, 120_000);

  it('is refused unless a positive whole number, before anything is built', () => {
    for (const bad of ['0', '-1', '1.5', 'one'])
      expect(() => appWith({ [CONTEXT.scheduledReservedConcurrency]: bad }), bad).toThrow(
        'drover:scheduledReservedConcurrency must be a positive whole number of executions',
      );
  });
});

describe('drover:stateTableKms', () => {
  it('is refused unless true or false, before anything is built', () => {
    for (const bad of ['yes', '1', 'arn:aws:kms:us-east-1:123456789012:key/x'])
      expect(() => appWith({ [CONTEXT.stateTableKms]: bad }), bad).toThrow('drover:stateTableKms must be true or false');
  });
});
