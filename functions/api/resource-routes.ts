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
import { adoptResourceUploads } from './resource-upload.js';
import type { Route, UserContext } from './user-routes.js';

/** deploy --resource: the first revision of each resource given. */
export async function receiveResources(
  ctx: UserContext,
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

export const resourceRoutes: { 'attach-resource': Route<'attach-resource'>; resources: Route<'resources'> } = {
  'attach-resource': async (ctx, body: RequestOf<'attach-resource'>) => {
    const application = await getApplication(ctx.store, body.application);
    if (!application) throw notFound(`application "${body.application}" not found`);
    // Before any upload is read: a name the charm does not declare changes nothing.
    checkUploadable(application.charm.resources, Object.keys(body.resources));
    const uploads = await adoptResourceUploads(ctx.charms, body.resources, ctx.store.now());
    return attachResource(ctx.store, { application: body.application, uploads });
  },
  resources: async (ctx, body: RequestOf<'resources'>): Promise<ResourcesView> => {
    const application = await getApplication(ctx.store, body.application);
    if (!application) throw notFound(`application "${body.application}" not found`);
    return { application: application.name, declared: application.charm.resources ?? {}, used: application.resources ?? {} };
  },
};
