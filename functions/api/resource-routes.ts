// The user API's resource operations: deploy's `resources`, attach-resource and resources. The
// files were uploaded beforehand as charms are (`charm-upload`); each is checked against the
// charm's declarations before its upload is read, then read as it streams and kept
// (./resource-upload.ts), and only then committed to the application in one transaction.
import type { RequestOf } from '#shared/api/requests.js';
import type { CharmMeta } from '#shared/domain/charm.js';
import { notFound } from '#shared/domain/errors.js';
import { checkUploadable, type ApplicationResource } from '#shared/domain/resources.js';
import { getApplication } from '#shared/state/engine/reads.js';
import { attachResource } from '#shared/state/operations/attach-resource.js';
import type { CharmStore } from '#shared/charmstore/charm-store.js';
import type { Store } from '#shared/state/engine/store.js';
import { adoptResourceUploads } from './resource-upload.js';

/** What these routes use of the user API's context (./user-routes.ts). */
interface ResourceContext {
  store: Store;
  charms: CharmStore;
}

/**
 * refresh --resource: the uploads, checked against the new charm before any is read, then kept;
 * which revision each becomes is the upgrade's to decide (nextResources).
 */
export async function receiveResourceUploads(
  ctx: ResourceContext,
  charm: CharmMeta,
  uploads: Record<string, string>,
): Promise<Record<string, Omit<ApplicationResource, 'revision'>>> {
  checkUploadable(charm.resources, Object.keys(uploads));
  return adoptResourceUploads(ctx.charms, uploads, ctx.store.now());
}

/** deploy --resource: the first revision of each resource given. */
export async function receiveResources(
  ctx: ResourceContext,
  charm: CharmMeta,
  uploads: Record<string, string>,
): Promise<Record<string, ApplicationResource>> {
  checkUploadable(charm.resources, Object.keys(uploads));
  const adopted = await adoptResourceUploads(ctx.charms, uploads, ctx.store.now());
  return Object.fromEntries(Object.entries(adopted).map(([name, upload]) => [name, { ...upload, revision: 1 }]));
}

/** What `resources <application>` shows: the charm's declarations and the revisions in use, by name. */
export interface ResourcesView {
  application: string;
  declared: CharmMeta['resources'] & object;
  used: Record<string, ApplicationResource>;
}

export const resourceRoutes = {
  'attach-resource': async (ctx: ResourceContext, body: RequestOf<'attach-resource'>) => {
    const application = await getApplication(ctx.store, body.application);
    if (!application) throw notFound(`application "${body.application}" not found`);
    // Before any upload is read: a name the charm does not declare changes nothing.
    checkUploadable(application.charm.resources, Object.keys(body.resources));
    const uploads = await adoptResourceUploads(ctx.charms, body.resources, ctx.store.now());
    return attachResource(ctx.store, { application: body.application, uploads });
  },
  resources: async (ctx: ResourceContext, body: RequestOf<'resources'>): Promise<ResourcesView> => {
    const application = await getApplication(ctx.store, body.application);
    if (!application) throw notFound(`application "${body.application}" not found`);
    return { application: application.name, declared: application.charm.resources ?? {}, used: application.resources ?? {} };
  },
};
