// resource-get's files on the unit's machine, where Juju 3.6 puts them:
// `<unit dir>/resources/<name>/<filename>` (the unit dir is the charm directory's parent,
// /var/lib/juju/agents/unit-<app>-<n> in Juju). The API names the revision the unit's application
// uses and a short-lived URL for its bytes (`resource-url`); the file is downloaded only when the
// copy on disk is not that revision's content, streamed to a temporary file while its SHA-384 is
// taken, and renamed into place only when that is the fingerprint the API gave: a cut-off or
// corrupted download is never handed to a hook.
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentApi } from '../api-client.js';
import { nodeHttp, type HttpSend } from '../http.js';
import { downloadVerified } from '../verified-download.js';

export interface ResourceRevision {
  revision: number;
  fingerprint: string;
  size: number;
  filename: string;
  url: string;
}

/** The path of the resource's file for `unit`, downloaded first when the copy here is not the revision in use. */
export type ResourceFetcher = (name: string) => Promise<string>;

let sharedHttp: HttpSend | undefined;

export function resourceFetcher(api: AgentApi, unitDir: string, unit: string, http?: HttpSend): ResourceFetcher {
  return async (name) => {
    const revision = await api.call<ResourceRevision>('resource-url', { unit, resource: name });
    const dir = join(unitDir, 'resources', name);
    const path = join(dir, revision.filename);
    // Which content the file holds, beside the resources' directories (a hook lists only its files in its own).
    const marker = join(unitDir, 'resources', `.${name}.fingerprint`);
    const held = await readFile(marker, 'utf8').catch(() => undefined);
    if (
      held === revision.fingerprint &&
      (await access(path).then(
        () => true,
        () => false,
      ))
    )
      return path;
    await mkdir(dir, { recursive: true });
    await download(new URL(revision.url, api.url).toString(), revision.fingerprint, path, http ?? (sharedHttp ??= nodeHttp()));
    await writeFile(marker, revision.fingerprint);
    return path;
  };
}

function download(url: string, fingerprint: string, destination: string, send: HttpSend): Promise<void> {
  return downloadVerified(
    {
      url,
      algorithm: 'sha384',
      digest: fingerprint,
      destination,
      mode: 0o644,
      failed: (status, body) => `could not download resource: HTTP ${status} ${body}`,
      corrupted: (actual) => `could not download resource: fingerprint mismatch (got ${actual}, want ${fingerprint})`,
    },
    send,
  );
}
