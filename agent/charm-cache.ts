// Charm archives on this machine: `<machine dir>/charms/<sha256>.tar.gz`, downloaded once through
// the agent API and checked against their hash, for the deployer (a new unit) and the unit agents
// (a charm upgrade) alike.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentApi } from './api-client.js';

export type CharmFetcher = (sha256: string) => Promise<Buffer>;

export function charmCache(api: AgentApi, cacheDir: string): CharmFetcher {
  return async (sha256) => {
    const cached = join(cacheDir, `${sha256}.tar.gz`);
    try {
      return readFileSync(cached);
    } catch {
      // not cached yet
    }
    const bytes = await api.charm(sha256);
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== sha256) throw new Error(`charm archive ${sha256} arrived corrupted (sha256 ${actual})`);
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(`${cached}.tmp`, bytes);
    renameSync(`${cached}.tmp`, cached);
    return bytes;
  };
}
