// resource-get's files on the machine (agent/uniter/resource-files.ts): placed where Juju places
// them, downloaded only when the copy there is not the revision in use, and never kept when what
// arrives is not the SHA-384 fingerprint the API gave.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { HttpResponse } from '@smithy/core/protocols';
import { describe, expect, it } from 'vitest';
import type { AgentApi } from '../../../agent/api-client.js';
import type { HttpSend } from '../../../agent/http.js';
import { resourceFetcher } from '../../../agent/uniter/resource-files.js';

const sha384 = (text: string) => createHash('sha384').update(text).digest('hex');

/** An API that names `content`'s revision; a server that sends `served` and counts the downloads. */
function fixture(content: string, served = content) {
  const calls: unknown[] = [];
  const api: AgentApi = {
    url: 'http://controller.test:17070',
    call: async <T>(op: string, body: unknown) => {
      calls.push([op, body]);
      return { revision: 3, fingerprint: sha384(content), size: content.length, filename: 'payload.txt', url: '/charm-archives/x' } as T;
    },
  };
  const downloads: string[] = [];
  const http: HttpSend = async (request) => {
    downloads.push(`${request.hostname}:${request.port}${request.path}`);
    return new HttpResponse({ statusCode: 200, headers: {}, body: Readable.from([Buffer.from(served)]) });
  };
  return { api, http, calls, downloads };
}

describe('resource files on the machine', () => {
  it('puts the file at <unit dir>/resources/<name>/<filename>, and downloads it again only for another revision', async () => {
    const unitDir = await mkdtemp(join(tmpdir(), 'drover-unit-'));
    const first = fixture('first');
    const path = await resourceFetcher(first.api, unitDir, 'app/0', first.http)('payload');
    expect(path).toBe(join(unitDir, 'resources', 'payload', 'payload.txt'));
    expect(readFileSync(path, 'utf8')).toBe('first');
    expect(first.calls).toEqual([['resource-url', { unit: 'app/0', resource: 'payload' }]]);
    expect(first.downloads).toEqual(['controller.test:17070/charm-archives/x']);

    await resourceFetcher(first.api, unitDir, 'app/0', first.http)('payload');
    expect(first.downloads).toHaveLength(1);

    const second = fixture('second revision');
    expect(await resourceFetcher(second.api, unitDir, 'app/0', second.http)('payload')).toBe(path);
    expect(readFileSync(path, 'utf8')).toBe('second revision');
    expect(second.downloads).toHaveLength(1);
  });

  it('keeps nothing when what arrives is not the fingerprint the API gave', async () => {
    const unitDir = await mkdtemp(join(tmpdir(), 'drover-unit-'));
    const tampered = fixture('the real file', 'not the file');
    await expect(resourceFetcher(tampered.api, unitDir, 'app/0', tampered.http)('payload')).rejects.toThrow(
      `could not download resource: fingerprint mismatch (got ${sha384('not the file')}, want ${sha384('the real file')})`,
    );
    expect(readdirSync(join(unitDir, 'resources', 'payload'))).toEqual([]);
    expect(existsSync(join(unitDir, 'resources', '.payload.fingerprint'))).toBe(false);
  });
});
