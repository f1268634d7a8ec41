// DynamoDB Local as drover starts it (embedded/dynamodb-local.ts, through its launcher):
// reachable from this host only, and gone when the process that started it is gone (docs/reliability.md, defect #9
// and #1).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '#shared/provider/local/process-identity.js';
import { startDynamoDbLocal } from '../../embedded/dynamodb-local.js';
import { waitFor } from '../support/wait-for.js';
import { isLoopback, listeningAddresses } from '../support/listening-sockets.js';

const CHILD = fileURLToPath(new URL('../support/dynamodb-local-child.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

describe('DynamoDB Local', () => {
  it('listens on 127.0.0.1 only, as the kernel sees its sockets', async () => {
    const db = await startDynamoDbLocal();
    try {
      const addresses = listeningAddresses(db.port);
      expect(addresses.length).toBeGreaterThan(0);
      expect(addresses.filter((a) => !isLoopback(a))).toEqual([]);
    } finally {
      await db.stop();
    }
  });

  it('stops by itself when the process that started it is killed with SIGKILL', { timeout: 60_000 }, async () => {
    const parent = spawn(process.execPath, ['--import', TSX, CHILD], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    parent.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const started = await waitFor(
      'the child to start DynamoDB Local',
      () => out,
      (o) => o.includes('\n'),
      45_000,
    );
    const { pid } = JSON.parse(started.trim()) as { pid: number };
    expect(isProcessAlive({ pid })).toBe(true);
    parent.kill('SIGKILL');
    await waitFor(
      'DynamoDB Local to exit after its parent',
      () => isProcessAlive({ pid }),
      (alive) => !alive,
      20_000,
    );
  });
});
