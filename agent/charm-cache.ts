// Charm archives on this machine: `<machine dir>/charms/<sha256>.tar.gz`, downloaded once and
// checked against their hash (./charm-download.ts), for the deployer (a new unit) and the unit
// agents (a charm upgrade) alike. The API says where to download each from (the agent operation
// `charm-url`), and only for a unit on this machine whose application uses it.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentApi } from './api-client.js';
import { downloadVerified } from './charm-download.js';

/** The archive `sha256`, which `unit`'s application uses. */
export type CharmFetcher = (unit: string, sha256: string) => Promise<Buffer>;

export function charmCache(api: AgentApi, cacheDir: string, doFetch: typeof fetch = fetch): CharmFetcher {
  return async (unit, sha256) => {
    const cached = join(cacheDir, `${sha256}.tar.gz`);
    const kept = await readFile(cached).catch(() => undefined);
    if (kept) return kept;
    const { url } = await api.call<{ url: string }>('charm-url', { unit, charm: sha256 });
    await mkdir(cacheDir, { recursive: true });
    // The local controller's URLs are paths on its API server; S3's are absolute.
    await downloadVerified(new URL(url, api.url).toString(), sha256, cached, doFetch);
    return readFile(cached);
  };
}
