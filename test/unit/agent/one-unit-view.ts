// What the in-process uniter tests show their agent (test/support/in-process-uniter.ts): one
// machine with one unit, mysql/0, of one application, with the leadership and model config each
// test chooses.
import type { AgentView } from '../../../agent/view.js';
import type { LeadershipView } from '#shared/domain/leadership.js';
import { application, NOW, unit } from '../plans/relation-fixtures.js';

export const UNIT = 'mysql/0';
export const app = application('mysql');

export function oneUnitView(leadership: LeadershipView, modelConfig: Record<string, string> = {}): AgentView {
  return {
    model: 'default',
    machine: {
      id: '0',
      life: 'alive',
      series: 'jammy',
      constraints: {},
      principals: [UNIT],
      provisioningAttempt: 1,
      agentStatus: { current: 'started', since: NOW },
      instanceStatus: { current: 'running', since: NOW },
      addresses: ['10.0.0.5'],
      createdAt: NOW,
    },
    units: [unit(UNIT, { charmUrl: app.charmUrl })],
    applications: [app],
    relations: [],
    modelConfig,
    leadership: [leadership],
  };
}
