// An agent throttled by API Gateway (429: the stage's limit, shared by every caller) tries again
// with backoff, as after a server failure; it does not take the 429 for a refusal.
import { Readable } from 'node:stream';
import { HttpResponse } from '@smithy/core/protocols';
import { describe, expect, it } from 'vitest';
import { AgentApiError, createAgentApi } from '../../../agent/api-client.js';
import { systemClock } from '../../../agent/clock.js';
import type { HttpSend } from '../../../agent/http.js';

/** Answers with the given statuses in turn; API Gateway's 429 body is its own. */
function answering(statuses: number[]) {
  let sent = 0;
  const http: HttpSend = async () => {
    sent++;
    const status = statuses.shift() ?? 200;
    const body =
      status === 200 ? '{"ok":true}' : status === 429 ? '{"message":"Too Many Requests"}' : '{"error":{"code":"bad","message":"no"}}';
    return new HttpResponse({ statusCode: status, headers: {}, body: Readable.from([Buffer.from(body)]) });
  };
  return { http, sent: () => sent };
}

function apiWith(http: HttpSend, pauses: number[]) {
  return createAgentApi({
    url: 'http://127.0.0.1:1',
    model: 'default',
    machineId: '0',
    credentials: { accessKeyId: 'machine-0', secretAccessKey: 'k' },
    region: 'local',
    http,
    attempts: 4,
    // Records each pause rather than sleeping it.
    clock: { ...systemClock, sleep: async (ms: number) => void pauses.push(ms) },
  });
}

describe('an agent throttled by the API', () => {
  it('waits and tries again until the request goes through', async () => {
    const { http, sent } = answering([429, 429, 200]);
    const pauses: number[] = [];
    expect(await apiWith(http, pauses).call('heartbeat', {})).toEqual({ ok: true });
    expect(sent()).toBe(3);
    expect(pauses).toHaveLength(2);
    for (const ms of pauses) expect(ms).toBeGreaterThan(0);
  });

  it('gives up after its attempts with an error that is not a refusal', async () => {
    const { http, sent } = answering([429, 429, 429, 429]);
    const error = await apiWith(http, [])
      .call('heartbeat', {})
      .catch((e: unknown) => e);
    expect(sent()).toBe(4);
    expect(error).toBeInstanceOf(AgentApiError);
    expect((error as AgentApiError).status).toBe(429);
    expect((error as AgentApiError).refused).toBe(false);
  });

  it('still takes any other 4xx for a refusal, at once', async () => {
    const { http, sent } = answering([403]);
    const error = (await apiWith(http, [])
      .call('heartbeat', {})
      .catch((e: unknown) => e)) as AgentApiError;
    expect(sent()).toBe(1);
    expect(error.refused).toBe(true);
  });
});
