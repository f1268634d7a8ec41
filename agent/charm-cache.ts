// Charm archives on this machine: `<machine dir>/charms/<sha256>.tar.gz`, downloaded once and
// checked against their hash (./charm-download.ts), for the deployer (a new unit) and the unit
// agents (a charm upgrade) alike. The API says where to download each from (the agent operation
// `charm-url`), and only for a unit on this machine whose application uses it.
import { access, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentApi } from './api-client.js';
import { downloadVerified } from './charm-download.js';

/** The path of the archive `sha256`, which `unit`'s application uses, once it is on this machine. */
export type CharmFetcher = (unit: string, sha256: string) => Promise<string>;

export function charmCache(api: AgentApi, cacheDir: string, doFetch: typeof fetch = fetch): CharmFetcher {
  return async (unit, sha256) => {
    const cached = join(cacheDir, `${sha256}.tar.gz`);
    if (
      await access(cached).then(
        () => true,
        () => false,
      )
    )
      return cached;
    const { url } = await api.call<{ url: string }>('charm-url', { unit, charm: sha256 });
    await mkdir(cacheDir, { recursive: true });
    // The local controller's URLs are paths on its API server; S3's are absolute.
    await downloadVerified(new URL(url, api.url).toString(), sha256, cached, doFetch);
    return cached;
  };
}
