// The secret charm pair (test/charms/secret-owner, test/charms/secret-consumer) on the real local
// controller, making ops's Secret API calls: the owner's leader adds an application secret and
// grants it over the relation; the consumer reads it; a new revision runs secret-changed on the
// consumer, which reads it with --refresh; removing the relation takes the grant with it. Then
// every log of the run (debug-log, the controller's and the agents' files) is searched for the
// secret's content, in plain text and base64, and holds none of it.
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { charmDir, spawnCli } from '../support/cli.js';
import { filesContaining, unitFileLines } from '../support/data-dir-files.js';

/** The password the owner derives from its `generation` config (test/charms/secret-owner/dispatch). */
const password = (generation: number) => createHash('sha256').update(`secret-pair-${generation}`).digest('hex').slice(0, 24);
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const field = (line: string, name: string) => new RegExp(`(?:^| )${name}=(\\S*)`).exec(line)?.[1];

describe('a secret owner and its consumer, on the local controller', () => {
  it(
    'grants, rotates and follows a secret, the grant goes with the relation, and no log holds its content',
    { timeout: 420_000 },
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'drover-secret-charms-'));
      const dataDir = join(home, 'controller');
      const env = { DROVER_HOME: home };
      const cli = (...args: string[]) => spawnCli(args, env);
      const drover = async (...args: string[]) => {
        const res = await cli(...args);
        expect(res.code, `drover ${args.join(' ')}: ${res.stderr}`).toBe(0);
        return res;
      };
      const hookLog = (unit: string) => unitFileLines(dataDir, unit, 'hook-log');
      try {
        await drover('bootstrap', 'local', '--data-dir', dataDir);
        await drover('deploy', charmDir('secret-owner'));
        await drover('deploy', charmDir('secret-consumer'));
        await drover('relate', 'secret-consumer', 'secret-owner');

        // The leader added the secret and granted it; the consumer read revision 1.
        const [added] = await waitFor(
          'the owner to add its secret',
          () => hookLog('secret-owner/0').filter((l) => field(l, 'added')),
          (l) => l.length > 0,
          240_000,
        );
        const uri = field(added!, 'added')!;
        expect(uri).toMatch(/^secret:[0-9a-v]{20}$/);
        await waitFor(
          'the consumer to read revision 1',
          () => hookLog('secret-consumer/0'),
          (l) => l.some((line) => line.startsWith('hook=creds-relation-changed') && field(line, 'sha') === sha(password(1))),
          120_000,
        );

        // A new revision: the consumer runs secret-changed with Juju's variables and reads it.
        await drover('config', 'secret-owner', 'generation=2');
        const changed = await waitFor(
          'the consumer to run secret-changed',
          () => hookLog('secret-consumer/0').filter((l) => l.startsWith('hook=secret-changed')),
          (l) => l.length > 0,
          120_000,
        );
        expect(changed).toHaveLength(1);
        expect(field(changed[0]!, 'JUJU_SECRET_ID')).toBe(uri);
        expect(field(changed[0]!, 'JUJU_SECRET_LABEL')).toBe('consumer-creds');
        expect(field(changed[0]!, 'JUJU_SECRET_REVISION')).toBe('2');
        expect(field(changed[0]!, 'sha')).toBe(sha(password(2)));

        // The grant goes with the relation: the consumer is refused from then on.
        await drover('remove-relation', 'secret-consumer', 'secret-owner');
        await waitFor(
          'the relation to go',
          async () => (await drover('status', '--format', 'json')).stdout,
          (s) => !('relations' in (JSON.parse(s).applications?.['secret-consumer'] ?? {})),
          120_000,
        );
        const refused = await cli('exec', '--unit', 'secret-consumer/0', '--', 'secret-get', uri);
        expect(refused.code).not.toBe(0);
        expect(refused.stdout + refused.stderr).toContain('permission denied');

        // No log of the run holds the content: debug-log, and every file the controller and its
        // agents wrote but the table itself (which keeps it, base64-encoded, by design).
        const contents = [1, 2].flatMap((g) => [password(g), Buffer.from(password(g)).toString('base64')]);
        const debugLog = (await drover('debug-log', '--replay', '--no-tail', '--level', 'TRACE')).stdout;
        expect(debugLog).toContain('secret-changed');
        for (const content of contents) expect(debugLog).not.toContain(content);
        expect(filesContaining(home, contents, ['controller/dynamodb'])).toEqual([]);
      } finally {
        await cli('kill-controller', 'local', '-y');
        await rm(home, { recursive: true, force: true });
      }
    },
  );
});
