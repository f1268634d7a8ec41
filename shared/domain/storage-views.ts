// What `drover storage` and `show-storage` show: Juju 3.6's CombinedStorage document (keys
// `storage`, `filesystems`, `volumes`; https://github.com/juju/juju/blob/3.6/cmd/juju/storage/storage.go,
// filesystem.go, volume.go) and its tabular rows (listtabular.go's columns).
import { knownPool, type StorageAttachment, type StorageInstance } from './storage.js';

export interface StorageEntityStatus {
  current: string;
  message?: string;
  since?: string;
}

/** An instance's status as Juju names it: pending until the agent attached it, attached, detaching, detached, destroying. */
export function storageStatus(instance: StorageInstance, attachments: StorageAttachment[]): StorageEntityStatus {
  const since = instance.createdAt;
  if (instance.life !== 'alive') return { current: attachments.length ? 'detaching' : 'destroying', since };
  if (attachments.length === 0) return { current: 'detached', since };
  if (attachments.some((a) => a.life !== 'alive')) return { current: 'detaching', since };
  return { current: attachments.every((a) => a.location !== undefined) ? 'attached' : 'pending', since };
}

const number = (id: string) => id.split('/')[1] ?? id;

/** The document `storage --format json|yaml` prints (and `show-storage`, for the instances asked). */
export function storageDocument(details: { instance: StorageInstance; attachments: StorageAttachment[] }[]) {
  const storage: Record<string, unknown> = {};
  const filesystems: Record<string, unknown> = {};
  const volumes: Record<string, unknown> = {};
  for (const { instance, attachments } of details) {
    const status = storageStatus(instance, attachments);
    const units = Object.fromEntries(
      attachments.map((a) => [
        a.unit,
        { ...(a.machine !== undefined ? { machine: a.machine } : {}), ...(a.location ? { location: a.location } : {}), life: a.life },
      ]),
    );
    storage[instance.id] = {
      kind: instance.kind,
      owner: instance.owner,
      life: instance.life,
      status,
      persistent: instance.persistent,
      ...(attachments.length ? { attachments: { units } } : {}),
    };
    const provider = knownPool(instance.pool)?.provider ?? instance.pool;
    const machines = Object.fromEntries(attachments.filter((a) => a.machine !== undefined).map((a) => [a.machine!, { life: a.life }]));
    if (instance.kind === 'filesystem') {
      filesystems[number(instance.id)] = {
        ...(instance.volume ? { volume: number(instance.id) } : {}),
        storage: instance.id,
        ...(attachments.length
          ? {
              attachments: {
                machines: Object.fromEntries(
                  attachments
                    .filter((a) => a.machine !== undefined)
                    .map((a) => [a.machine!, { 'mount-point': a.location ?? '', 'read-only': instance.readOnly === true, life: a.life }]),
                ),
                units: Object.fromEntries(
                  attachments.map((a) => [a.unit, { machine: a.machine ?? '', location: a.location ?? '', life: a.life }]),
                ),
              },
            }
          : {}),
        pool: instance.pool,
        size: instance.size,
        life: instance.life,
        status: { current: status.current === 'attached' ? 'attached' : status.current, since: status.since },
      };
    }
    if (instance.kind === 'block' || instance.volume) {
      volumes[number(instance.id)] = {
        ...(instance.volume ? { 'provider-id': instance.volume.volumeId } : {}),
        storage: instance.id,
        ...(Object.keys(machines).length
          ? {
              attachments: {
                machines: Object.fromEntries(
                  attachments
                    .filter((a) => a.machine !== undefined)
                    .map((a) => [
                      a.machine!,
                      { ...(instance.volume?.device ? { 'device-link': instance.volume.device } : {}), 'read-only': false, life: a.life },
                    ]),
                ),
                units: Object.fromEntries(attachments.map((a) => [a.unit, { machine: a.machine ?? '', life: a.life }])),
              },
            }
          : {}),
        pool: instance.pool,
        size: instance.size,
        persistent: instance.persistent,
        life: instance.life,
        status: { current: instance.volume ? 'attached' : 'pending', since: status.since },
        provider,
      };
    }
  }
  return { storage, ...(Object.keys(filesystems).length ? { filesystems } : {}), ...(Object.keys(volumes).length ? { volumes } : {}) };
}

/** Sizes as Juju's humanize.IBytes prints MiB: `100 MiB`, `1.0 GiB`. */
export function humanizeIBytes(mib: number): string {
  if (mib <= 0) return '';
  const bytes = mib * 1024 * 1024;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  const exponent = Math.min(Math.floor(Math.log(bytes) / Math.log(1024)), units.length - 1);
  const value = Math.floor((bytes / 1024 ** exponent) * 10 + 0.5) / 10;
  return `${value < 10 ? value.toFixed(1) : value.toFixed(0)} ${units[exponent]}`;
}

/**
 * `storage`'s tabular rows: Unit, Storage ID, Type, Pool, Size, Status, Message, by unit then
 * storage id; `status --storage` adds the Mountpoint before Size.
 */
export function storageRows(
  details: { instance: StorageInstance; attachments: StorageAttachment[] }[],
  options: { mountpoint?: boolean } = {},
): string[][] {
  const rows = details.flatMap(({ instance, attachments }) => {
    const status = storageStatus(instance, attachments);
    const row = (a?: StorageAttachment) => [
      a?.unit ?? '',
      instance.id,
      instance.kind,
      instance.pool,
      ...(options.mountpoint ? [a?.location ?? ''] : []),
      humanizeIBytes(instance.size),
      status.current,
      status.message ?? '',
    ];
    return attachments.length ? attachments.map(row) : [row()];
  });
  const byId = (a: string, b: string) => {
    const [an, ai] = a.split('/');
    const [bn, bi] = b.split('/');
    return an === bn ? Number(ai) - Number(bi) : (an ?? '').localeCompare(bn ?? '');
  };
  // Juju sorts units by name (unattached last), then storage ids by name and number.
  return rows.sort((a, b) => (a[0] === b[0] ? byId(a[1]!, b[1]!) : a[0] === '' ? 1 : b[0] === '' ? -1 : a[0]!.localeCompare(b[0]!)));
}
