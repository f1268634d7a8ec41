// The storage tables, as Juju 3.6's cmd/juju/storage listtabular.go prints them: `drover storage`'s
// and the section `drover status --storage` adds.
import { storageRows } from '#shared/domain/storage-views.js';
import type { StorageAttachment, StorageInstance } from '#shared/domain/storage.js';
import { renderTable, statusStyle, styled, type Cell } from './table.js';

/** The `storage` document (shared/domain/storage-views.ts), as much of it as the tables read. */
export interface StorageDoc {
  storage: Record<
    string,
    {
      kind: StorageInstance['kind'];
      status: { current: string; message?: string };
      attachments?: { units: Record<string, { location?: string }> };
    }
  >;
  filesystems?: Record<string, { storage: string; pool: string; size: number }>;
  volumes?: Record<string, { storage: string; pool: string; size: number }>;
}

/** The document back to the rows' inputs: each instance, its pool and size, and its units. */
function detailsOf(doc: StorageDoc) {
  const sized = new Map<string, { pool: string; size: number }>();
  for (const v of Object.values(doc.volumes ?? {})) sized.set(v.storage, v);
  for (const f of Object.values(doc.filesystems ?? {})) sized.set(f.storage, f);
  return Object.entries(doc.storage).map(([id, info]) => {
    const instance = {
      id,
      kind: info.kind,
      pool: sized.get(id)?.pool ?? '',
      size: sized.get(id)?.size ?? 0,
      life: 'alive',
    } as StorageInstance;
    const attachments = Object.entries(info.attachments?.units ?? {}).map(
      ([unit, a]) => ({ storage: id, unit, life: 'alive', ...(a.location ? { location: a.location } : {}) }) as StorageAttachment,
    );
    return { instance, attachments, status: info.status };
  });
}

/** `storage`'s table; `status --storage`'s (its first column `Storage Unit`, with the Mountpoint). */
export function storageTable(doc: StorageDoc, colour: boolean, options: { forStatus?: boolean } = {}): string {
  const details = detailsOf(doc);
  const statusOf = new Map(details.map((d) => [d.instance.id, d.status]));
  const mountpoint = options.forStatus === true;
  const rows = storageRows(details, { mountpoint }).map((row): Cell[] => {
    const status = statusOf.get(row[1]!);
    return [...row.slice(0, -2), styled(status?.current ?? row.at(-2), statusStyle(status?.current)), status?.message ?? ''];
  });
  const header = mountpoint
    ? ['Storage Unit', 'Storage ID', 'Type', 'Pool', 'Mountpoint', 'Size', 'Status', 'Message']
    : ['Unit', 'Storage ID', 'Type', 'Pool', 'Size', 'Status', 'Message'];
  return renderTable([header, ...rows], colour);
}
