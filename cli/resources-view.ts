// `resources <application|unit>` as Juju 3.6 prints it (cmd/juju/resource/formatted.go,
// formatter.go and output_tabular.go, https://github.com/juju/juju/tree/3.6/cmd/juju/resource):
// `--format json|yaml` gives `resources`, one entry per resource the charm declares, with the
// revision the application uses (`used: false` for one never uploaded); tabular shows Resource,
// Supplied by and Revision for an application, Resource and Revision for a unit. A resource
// fetched from Charmhub with its charm is supplied by the `store`, at Charmhub's revision.
import type { ApplicationResource, CharmResource } from '#shared/domain/resources.js';
import { renderTable } from './table.js';

export interface ResourcesAnswer {
  application: string;
  declared: Record<string, CharmResource>;
  used: Record<string, ApplicationResource>;
}

/** drover has one user, as a fresh Juju controller has: uploads are "supplied by" it. */
const USER = 'admin';

export interface FormattedResource {
  applicationId: string;
  name: string;
  type: string;
  path: string;
  description?: string;
  revision: string;
  fingerprint: string;
  size: number;
  /** `store`: Charmhub's revision, fetched with the charm (Juju's OriginStore). */
  origin: 'upload' | 'store';
  used: boolean;
  timestamp?: string;
  username?: string;
}

export function formattedResources(answer: ResourcesAnswer): FormattedResource[] {
  return Object.values(answer.declared)
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((declared) => {
      const used = Object.hasOwn(answer.used, declared.name) ? answer.used[declared.name] : undefined;
      return {
        applicationId: answer.application,
        name: declared.name,
        type: declared.type,
        path: declared.filename,
        ...(declared.description ? { description: declared.description } : {}),
        revision: used ? String(used.revision) : '-',
        fingerprint: used?.fingerprint ?? '',
        size: used?.size ?? 0,
        origin: used?.origin === 'store' ? 'store' : 'upload',
        used: used !== undefined,
        ...(used && used.origin !== 'store' ? { timestamp: used.timestamp, username: USER } : {}),
      };
    });
}

/**
 * Juju's combinedRevision: a store revision's number; an upload's time in Go's layout
 * "2006-02-01T15:04" (year, day, month).
 */
export function combinedRevision(resource: FormattedResource): string {
  if (resource.origin === 'store' && resource.used) return resource.revision;
  if (!resource.timestamp) return '-';
  const t = new Date(resource.timestamp);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${t.getUTCFullYear()}-${two(t.getUTCDate())}-${two(t.getUTCMonth() + 1)}T${two(t.getUTCHours())}:${two(t.getUTCMinutes())}`;
}

export function resourcesTable(resources: FormattedResource[], unit: boolean, colour: boolean): string {
  if (unit) return renderTable([['Resource', 'Revision'], ...resources.map((r) => [r.name, combinedRevision(r)])], colour);
  return renderTable(
    [
      ['Resource', 'Supplied by', 'Revision'],
      ...resources.map((r) => [r.name, r.used ? (r.username ?? r.origin) : r.origin, combinedRevision(r)]),
    ],
    colour,
  );
}
