// A deployer's duties (lifecycles.txt, "Agents"), as a plan from units and deployments.
import { describe, expect, it } from 'vitest';
import { planDeployments } from '../../../agent/machine/deployments.js';
import { unit } from '../plans/relation-fixtures.js';

describe('planDeployments', () => {
  it('"detecting undeployed Alive principals assigned to it and deploying them"', () => {
    const u = unit('mysql/0');
    expect(planDeployments([u], [])).toEqual([{ kind: 'deploy', unit: u }]);
  });

  it('"detecting undeployed non-Alive principals assigned to it and removing them"', () => {
    const dying = unit('mysql/0', { life: 'dying' });
    const dead = unit('mysql/1', { life: 'dead' });
    expect(planDeployments([dying, dead], [])).toEqual([
      { kind: 'remove', unit: dying },
      { kind: 'remove', unit: dead },
    ]);
  });

  it('"detecting deployed Dead principals assigned to it, recalling them, and removing them"', () => {
    const dead = unit('mysql/0', { life: 'dead' });
    expect(planDeployments([dead], ['mysql/0'])).toEqual([{ kind: 'recall-and-remove', unit: dead }]);
  });

  it('"detecting deployed principals not assigned to it, and recalling them"', () => {
    expect(planDeployments([], ['mysql/0'])).toEqual([{ kind: 'recall', name: 'mysql/0' }]);
  });

  it('leaves deployed Alive and Dying units to their own agents', () => {
    expect(planDeployments([unit('mysql/0'), unit('mysql/1', { life: 'dying' })], ['mysql/0', 'mysql/1'])).toEqual([]);
  });

  it('takes units in numeric order', () => {
    const units = ['mysql/10', 'mysql/2', 'mysql/1'].map((n) => unit(n));
    expect(planDeployments(units, []).map((a) => (a.kind === 'deploy' ? a.unit.name : ''))).toEqual(['mysql/1', 'mysql/2', 'mysql/10']);
  });
});
