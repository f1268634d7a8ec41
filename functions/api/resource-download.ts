// resource-get's side of the agent API: the revision of a resource the unit's application uses
// and a short-lived URL to download its bytes from the charm store (the same presigned GET as a
// charm archive's). A declared resource with no revision uploaded is refused, as Juju refuses to
// open a placeholder resource; the agent checks the download against the fingerprint.
import type { CharmStore } from '#shared/charmstore/charm-store.js';
import { notFound } from '#shared/domain/errors.js';
import { getApplication } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';

export interface ResourceDownload {
  revision: number;
  sha256: string;
  fingerprint: string;
  size: number;
  filename: string;
  url: string;
}

export async function resourceDownload(store: Store, charms: CharmStore, application: string, name: string): Promise<ResourceDownload> {
  const app = await getApplication(store, application);
  const own = <T>(record: Record<string, T> | undefined) => (record && Object.hasOwn(record, name) ? record[name] : undefined);
  const declared = own(app?.charm.resources);
  if (!app || !declared) throw notFound(`resource "${name}" not found`);
  const used = own(app.resources);
  if (!used)
    throw notFound(
      `resource#${application}/${name} not found: no revision has been uploaded (juju attach-resource ${application} ${name}=<path>)`,
    );
  const { revision, sha256, fingerprint, size } = used;
  return { revision, sha256, fingerprint, size, filename: declared.filename, url: await charms.downloadUrl(sha256) };
}
