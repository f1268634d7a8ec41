// Charm resources (Juju 3.6's internal/charm/resource and core/resource): what a charm's
// metadata.yaml declares under `resources`, and which uploaded revision of each an application
// uses. drover keeps file resources uploaded from the client (`deploy --resource name=path`,
// `attach-resource`); a charm repository's resources (oci-image, or revisions from Charmhub)
// are declared and listed but never fetched. Juju's checks and words:
// https://github.com/juju/juju/blob/3.6/internal/charm/resource/meta.go and
// https://github.com/juju/juju/blob/3.6/cmd/juju/application/deployer/resources.go.
import { invalidArgument } from './errors.js';

export type ResourceType = 'file' | 'oci-image';

/** A resource as metadata.yaml declares it (Juju's resource.Meta). */
export interface CharmResource {
  name: string;
  type: ResourceType;
  /** A file resource's name on the unit's disk (metadata `filename`, Juju's Path). */
  filename: string;
  description?: string;
}

/** One uploaded revision of a resource, as an application uses it (Juju's resource.Resource). */
export interface ApplicationResource {
  /** 1 for the first upload, then one more for each upload of different content. */
  revision: number;
  /** The charm store key of its bytes: they are kept once per content, beside the charm archives. */
  sha256: string;
  /** Juju's fingerprint: the SHA-384 of the bytes, in hex; resource-get checks the download against it. */
  fingerprint: string;
  size: number;
  /** When it was uploaded (ISO time). */
  timestamp: string;
  /** `store`: Charmhub's revision of it, fetched with the charm; absent: uploaded by the user. */
  origin?: 'store';
}

/** The largest resource drover takes: one gigabyte, as big as a charm archive may be (its upload is the same). */
export const MAX_RESOURCE_BYTES = 2 ** 30;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const fail = (message: string) => invalidArgument(`metadata.yaml: ${message}`);

/** metadata.yaml's `resources`, checked as Juju's resource.Meta.Validate checks each one. */
export function parseCharmResources(raw: unknown): Record<string, CharmResource> {
  if (raw == null) return {};
  if (!isRecord(raw)) throw fail('"resources" must be a mapping of resource name to resource');
  const resources: Record<string, CharmResource> = {};
  for (const [name, spec] of Object.entries(raw)) {
    // The name is a directory on the unit's disk (<unit dir>/resources/<name>/): it must stay one.
    if (name === '' || name === '.' || name === '..' || name.includes('/')) throw fail(`invalid resource name "${name}"`);
    if (!isRecord(spec)) throw fail(`resource "${name}": must be a mapping with "type" and "filename"`);
    const type = spec.type ?? 'file';
    if (type !== 'file' && type !== 'oci-image') throw fail(`resource "${name}": unsupported resource type "${String(type)}"`);
    const filename = spec.filename ?? '';
    if (typeof filename !== 'string') throw fail(`resource "${name}": "filename" must be a string`);
    if (type === 'file' && filename === '') throw fail(`resource "${name}": resource missing filename`);
    if (filename.includes('/')) throw fail(`resource "${name}": filename cannot contain "/" (got "${filename}")`);
    if (filename === '.' || filename === '..') throw fail(`resource "${name}": invalid filename "${filename}"`);
    const resource: CharmResource = { name, type, filename };
    if (typeof spec.description === 'string' && spec.description !== '') resource.description = spec.description;
    resources[name] = resource;
  }
  return resources;
}

/**
 * The resources a deploy or attach-resource names, checked against the charm's: Juju's
 * "unrecognized resource" for a name the charm does not declare, and only file resources may be
 * uploaded from a file.
 */
export function checkUploadable(declared: Record<string, CharmResource> | undefined, names: string[]): void {
  const unknown = names.filter((name) => !declared || !Object.hasOwn(declared, name)).sort();
  if (unknown.length === 1) throw invalidArgument(`unrecognized resource "${unknown[0]}"`);
  if (unknown.length > 1) throw invalidArgument(`unrecognized resources: ${unknown.join(', ')}`);
  for (const name of names) {
    const resource = declared![name]!;
    if (resource.type !== 'file')
      throw invalidArgument(`resource "${name}" is of type "${resource.type}": drover uploads only file resources from a path`);
  }
}

/** `name=path`, as deploy's and attach-resource's arguments spell a resource (Juju's wording). */
export function parseResourceArgument(argument: string): { name: string; path: string } {
  const at = argument.indexOf('=');
  const name = at < 0 ? '' : argument.slice(0, at);
  const path = at < 0 ? '' : argument.slice(at + 1);
  if (name === '' || path === '') throw invalidArgument(`invalid resource specification "${argument}": expected name=path`);
  return { name, path };
}

/**
 * The application's resources after uploads: each upload whose content differs from the
 * revision in use becomes the next revision; the same content again changes nothing, so a
 * request sent twice (a retry after a lost answer) adds no revision.
 */
export function nextResources(
  current: Record<string, ApplicationResource> | undefined,
  uploads: Record<string, Omit<ApplicationResource, 'revision'>>,
): { resources: Record<string, ApplicationResource>; changed: string[] } {
  const resources = { ...current };
  const changed: string[] = [];
  for (const [name, upload] of Object.entries(uploads).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const used = resources[name];
    if (used && used.fingerprint === upload.fingerprint) continue;
    resources[name] = { ...upload, revision: (used?.revision ?? 0) + 1 };
    changed.push(name);
  }
  return { resources, changed };
}
