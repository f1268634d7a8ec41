// The machine agent's hint receiver against a real local SQS server (fauxqs) that goes away and
// comes back (docs/reliability.md, defect #4): a restarted local controller serves SQS on the same port when it can,
// with its queues gone; or on another port, written to the endpoint file. Either way the receiver
// is back within seconds, resyncs once (hints sent while it was away are lost) and receives the
// next hint.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { HintReceiver } from '../../agent/machine/hint-receiver.js';
import { readSqsEndpoint } from '../../agent/machine/sqs-endpoint.js';
import type { AgentLog } from '../../agent/log/agent-log.js';
import { startSqsServer, type SqsServer } from '../../embedded/sqs-server.js';
import type { Hint } from '#shared/messaging/hint.js';
import { ensureMachineQueue, sendHints } from '#shared/messaging/machine-queues.js';
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import { waitFor } from '../support/wait-for.js';

const CONTROLLER = 'hints-test';
const MACHINE = '0';
const REGION = 'local';

let cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

function recordingLog(lines: string[]): AgentLog {
  return {
    log: (_unit: unknown, level: string, _module: string, message: string) => lines.push(`${level} ${message}`),
  } as unknown as AgentLog;
}

async function server(port?: number): Promise<SqsServer> {
  const s = await startSqsServer(port ? { port } : {});
  cleanups.push(() => s.stop());
  return s;
}

function client(endpoint: string): SQSClient {
  const c = createSqsClient({ endpoint, region: REGION });
  cleanups.push(() => c.destroy());
  return c;
}

async function receiving(sqs: SQSClient, options: { moved?: () => SQSClient | undefined } = {}) {
  const hints: Hint[] = [];
  const log: string[] = [];
  const receiver = new HintReceiver({
    sqs,
    queueUrl: await ensureMachineQueue(sqs, CONTROLLER, 'default', MACHINE),
    onHints: (h) => hints.push(...h),
    log: recordingLog(log),
    recreateQueue: (current) => ensureMachineQueue(current, CONTROLLER, 'default', MACHINE),
    ...options,
  });
  receiver.start();
  cleanups.push(() => receiver.stop());
  return { hints, log };
}

const retryDelays = (log: string[]) =>
  log
    .map((l) => /retrying in (\d+) ms/.exec(l)?.[1])
    .filter(Boolean)
    .map(Number);

describe('hint receiver', () => {
  it(
    'after its SQS server restarts empty on the same port, retries within 4 s, resyncs, and receives the next hint',
    { timeout: 60_000 },
    async () => {
      const first = await server();
      const { hints, log } = await receiving(client(first.endpoint));
      await first.stop();
      // Long enough for the backoff to reach its ceiling.
      await waitFor(
        'five failed receives',
        () => retryDelays(log).length,
        (n) => n >= 5,
        30_000,
      );

      const second = await server(first.port);
      expect(second.port).toBe(first.port);
      await waitFor(
        'a resync',
        () => hints,
        (h) => h.some((x) => x.kind === 'resync'),
        10_000,
      );
      expect(log.some((l) => l.includes('the machine queue was missing and has been re-created'))).toBe(true);
      expect(Math.max(...retryDelays(log))).toBeLessThanOrEqual(4_000);

      const result = await sendHints(client(second.endpoint), CONTROLLER, 'default', [MACHINE], { kind: 'unit', id: 'mysql/0' });
      expect(result.failures).toEqual([]);
      await waitFor(
        'the hint',
        () => hints,
        (h) => h.some((x) => x.kind === 'unit' && x.id === 'mysql/0'),
        10_000,
      );
      expect(hints.filter((h) => h.kind === 'resync')).toHaveLength(1);
    },
  );

  it('follows an SQS server that came back on another port, as the endpoint file says', { timeout: 60_000 }, async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'drover-hints-')), 'sqs-endpoint');
    const first = await server();
    writeFileSync(file, `${first.endpoint}\n`);
    let endpoint = first.endpoint;
    const { hints, log } = await receiving(client(first.endpoint), {
      moved: () => {
        const now = readSqsEndpoint(file);
        if (!now || now === endpoint) return undefined;
        endpoint = now;
        return client(now);
      },
    });
    await first.stop();
    await waitFor(
      'a failed receive',
      () => retryDelays(log).length,
      (n) => n >= 1,
      10_000,
    );

    const second = await server();
    expect(second.port).not.toBe(first.port);
    writeFileSync(file, `${second.endpoint}\n`);
    await waitFor(
      'a resync',
      () => hints,
      (h) => h.some((x) => x.kind === 'resync'),
      10_000,
    );
    expect(log.some((l) => l.includes('the SQS server moved'))).toBe(true);

    await sendHints(client(second.endpoint), CONTROLLER, 'default', [MACHINE], { kind: 'unit', id: 'mysql/1' });
    await waitFor(
      'the hint',
      () => hints,
      (h) => h.some((x) => x.kind === 'unit' && x.id === 'mysql/1'),
      10_000,
    );
  });
});
