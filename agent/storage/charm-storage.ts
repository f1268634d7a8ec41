// What the agent needs of a charm's `storage:` declaration to place a filesystem: its `location`,
// and whether the storage is a singleton (at most one instance: `multiple` absent, or a range whose
// maximum is 1). Read from the charm metadata the view carries with the application, as metadata.yaml
// spells it (https://documentation.ubuntu.com/juju/3.6/reference/charm/charm-metadata/, "storage").
import type { Application } from '#shared/domain/entities.js';

export interface CharmStorageMeta {
  location?: string;
  singleton: boolean;
}

/** `multiple.range`: `n`, `m-n` or `m+`; at most one instance when its maximum is 1. */
function singleton(multiple: unknown): boolean {
  if (multiple === undefined || multiple === null) return true;
  const range = (multiple as { range?: unknown }).range;
  if (typeof range === 'number') return range === 1;
  // `m+` has no maximum; `m-n` has n; `n` alone is exactly n.
  const bounds = typeof range === 'string' ? /^(\d+)(?:-(\d+))?$/.exec(range) : null;
  return bounds !== null && Number(bounds[2] ?? bounds[1]) === 1;
}

export function charmStorageMeta(application: Application | undefined, name: string): CharmStorageMeta {
  const declared = (application?.charm as { storage?: Record<string, unknown> } | undefined)?.storage?.[name];
  const spec = (declared ?? {}) as { location?: unknown; multiple?: unknown };
  return {
    ...(typeof spec.location === 'string' && spec.location !== '' ? { location: spec.location } : {}),
    singleton: singleton(spec.multiple),
  };
}
