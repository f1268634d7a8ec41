// Charm archives on this machine: `<machine dir>/charms/<sha256>.tar.gz`, downloaded once and
// checked against their hash (./charm-download.ts), for the deployer (a new unit) and the unit
// agents (a charm upgrade) alike. The API says where to download each from, and only for a unit
// on this machine whose application uses it: the view carries the URL of each archive its units
// still lack (`charmDownloads`), and the agent operation `charm-url` hands out a fresh one when the
// view has none, or its URL no longer works (it expires within minutes).
import { access, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentApi } from './api-client.js';
import { downloadCharm } from './charm-download.js';
import { nodeHttp, type HttpSend } from './http.js';

/** The path of the archive `sha256`, which `unit`'s application uses, once it is on this machine. */
export type CharmFetcher = (unit: string, sha256: string) => Promise<string>;

/** The URL the agent's view offers for an archive, if any. */
export type OfferedUrl = (sha256: string) => string | undefined;

export interface CharmCacheOptions {
  offered?: OfferedUrl;
  /** What downloads (./http.ts); its own connections unless given. */
  http?: HttpSend;
}

export function charmCache(api: AgentApi, cacheDir: string, options: CharmCacheOptions = {}): CharmFetcher {
  const { offered = () => undefined, http = nodeHttp() } = options;
  return async (unit, sha256) => {
    const cached = join(cacheDir, `${sha256}.tar.gz`);
    if (
      await access(cached).then(
        () => true,
        () => false,
      )
    )
      return cached;
    await mkdir(cacheDir, { recursive: true });
    // The local controller's URLs are paths on its API server; S3's are absolute.
    const download = (url: string) => downloadCharm(new URL(url, api.url).toString(), sha256, cached, http);
    const fromView = offered(sha256);
    if (fromView !== undefined) {
      try {
        await download(fromView);
        return cached;
      } catch {
        // Expired, most likely: a fresh URL below, whose failure is the one reported.
      }
    }
    const { url } = await api.call<{ url: string }>('charm-url', { unit, charm: sha256 });
    await download(url);
    return cached;
  };
}
