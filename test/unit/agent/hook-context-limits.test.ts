// relation-set with more than one stored item holds fails in the hook, with the limit named
// (docs/reliability.md, defect #7): before, the hook exited 0, the commit was refused with a 500, and the unit
// showed "hook failed" with no cause.
import { describe, expect, it } from 'vitest';
import { runTool } from '../../../agent/hook-tools/commands/index.js';
import { HookContext } from '../../../agent/uniter/hook-context.js';
import type { HookContextInit } from '../../../agent/uniter/hook-context-init.js';
import { MAX_SETTINGS_BYTES } from '#shared/domain/item-size.js';

function hookContext() {
  const calls: [string, unknown][] = [];
  // Only what relation-set and the commit touch: the unit, its relations, and the API.
  const init = {
    id: 'ctx-1',
    unitName: 'wordpress/0',
    modelUuid: '',
    openPorts: [],
    hookRelationId: 3,
    relations: [{ id: 3, endpoint: 'db', remoteApplication: 'mysql' }],
    workload: { status: 'unknown', message: '' },
    api: {
      call: async (op: string, body: unknown) => {
        calls.push([op, body]);
        return {};
      },
    },
  } as unknown as HookContextInit;
  return { ctx: new HookContext(init), calls };
}

describe('relation-set beyond what a stored item holds', () => {
  it('fails at once with the limit named, and the hook commits nothing of it', async () => {
    const { ctx, calls } = hookContext();
    const result = await runTool(ctx, 'relation-set', [`big=${'x'.repeat(500_000)}`], { cwd: '/' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`^ERROR max allowed size \\(${MAX_SETTINGS_BYTES}\\) of the settings of unit "wordpress/0" in relation 3 exceeded`),
    );
    expect(await ctx.flush()).toEqual({});
    expect(calls).toEqual([]);
  });

  it('counts what the hook set before: two halves are refused at the second, the first kept', async () => {
    const { ctx, calls } = hookContext();
    const half = 'x'.repeat(MAX_SETTINGS_BYTES / 2);
    expect((await runTool(ctx, 'relation-set', [`a=${half}`], { cwd: '/' })).code).toBe(0);
    expect((await runTool(ctx, 'relation-set', [`b=${half}`], { cwd: '/' })).stderr).toMatch(/^ERROR max allowed size/);
    await ctx.flush();
    expect(calls).toEqual([['commit-hook', { unit: 'wordpress/0', settings: [{ relationId: 3, changes: { a: half } }], ports: [] }]]);
  });
});
