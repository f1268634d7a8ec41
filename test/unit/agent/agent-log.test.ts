// The agents' log shipping (agent/log/agent-log.ts): lines reach the controller in batches.
import { describe, expect, it } from 'vitest';
import type { AgentApi } from '../../../agent/api-client.js';
import { AgentLog } from '../../../agent/log/agent-log.js';

function recordingApi() {
  const batches: { unit?: string; lines: { message: string }[] }[] = [];
  const api = {
    call: async (op: string, body: unknown) => {
      if (op === 'log') batches.push(body as (typeof batches)[number]);
      return {};
    },
    url: 'http://127.0.0.1:1',
  } as unknown as AgentApi;
  return { api, batches };
}

describe('the agent log', () => {
  it('ships lines after a flush with nothing pending (a settled flush must not stick)', async () => {
    const { api, batches } = recordingApi();
    const log = new AgentLog('0', api, () => undefined);
    await log.flush(); // as the deployer does after converging, with nothing logged
    log.log('app/0', 'INFO', 'unit.app/0.juju-log', 'after the empty flush');
    await log.flush();
    expect(batches.flatMap((b) => b.lines.map((l) => l.message))).toEqual(['after the empty flush']);
  });

  it('ships lines logged while a batch is on its way before the flush resolves', async () => {
    const { api, batches } = recordingApi();
    const log = new AgentLog('0', api, () => undefined);
    log.log(undefined, 'INFO', 'm', 'first');
    const flushed = log.flush();
    log.log(undefined, 'INFO', 'm', 'second');
    await flushed;
    expect(batches.flatMap((b) => b.lines.map((l) => l.message))).toEqual(['first', 'second']);
  });
});
