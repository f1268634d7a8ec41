// A bundle's Charmhub charms, fetched to this machine before anything changes, so the bundle is
// verified whole against their metadata (endpoints, options, bases) as it is against local charms'.
// Each is resolved and downloaded as `drover download` does, on the current model's charmhub-url
// (the Charmhub its controller will fetch from), and checked against the sha256 Charmhub announced;
// the deploy then names it by name, channel and revision, and the controller fetches and checks it
// again (functions/api/charmhub-charm.ts), as Juju's controller does.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_CHARM_BYTES } from '#shared/charmstore/charm-archive.js';
import { downloadChecked } from '#shared/charmhub/download.js';
import { resolveCharm } from '#shared/charmhub/resolve.js';
import { parseBase } from '#shared/domain/bases.js';
import { errorMessage } from '#shared/domain/errors.js';
import { readCharmDir, type CharmDir } from '../charm-dir.js';
import { cliCharmhub } from '../charmhub-client.js';
import type { Cli } from '../context.js';
import type { Bundle, BundleApplication } from './bundle-file.js';

export type FetchCharmhubCharm = (bundle: Bundle, application: string, app: BundleApplication) => Promise<CharmDir>;

export function charmhubFetcher(cli: Cli): FetchCharmhubCharm {
  let dir: Promise<string> | undefined;
  return async (bundle, application, app) => {
    const ref = app.charmhub!;
    const client = await cliCharmhub(cli, undefined);
    const baseText = app.base ?? (app.series === undefined ? bundle.defaultBase : undefined);
    const base = baseText !== undefined ? parseBase(baseText) : undefined;
    const resolved = await resolveCharm(client, {
      name: ref.name,
      ...(ref.channel !== undefined ? { channel: ref.channel } : {}),
      ...(ref.revision !== undefined ? { revision: ref.revision } : {}),
      ...(base ? { base: { name: base.os, channel: base.channel } } : {}),
      preferredBases: [{ name: 'ubuntu', channel: '22.04' }],
    });
    const { entity } = resolved;
    const got = await downloadChecked(
      entity.download.url,
      { size: entity.download.size, ...(entity.download['hash-sha-256'] ? { sha256: entity.download['hash-sha-256'] } : {}) },
      { maxBytes: MAX_CHARM_BYTES, timeoutMs: 600_000 },
    ).catch((e: unknown) => {
      throw new Error(`downloading charm "${ref.name}": ${errorMessage(e)}`);
    });
    dir ??= mkdtemp(join(tmpdir(), 'drover-bundle-charms-'));
    const file = join(await dir, `${application}_${entity.name}_r${entity.revision}.charm`);
    await writeFile(file, got.bytes);
    return readCharmDir(file, `application "${application}" takes`);
  };
}
