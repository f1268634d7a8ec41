// What the changes function's hint step (the notifier) tells a machine agent: "look again at this". A hint names an entity and
// nothing else — no values, no secrets — because agents re-read state, which is the truth
// (docs/architecture.md, 'State is the truth; messages are hints'). Lost, duplicated or reordered hints are
// harmless; a periodic `resync` hint covers the lost ones.
export type HintKind = 'machine' | 'unit' | 'application' | 'relation' | 'settings' | 'model' | 'secret' | 'resync';

export interface Hint {
  kind: HintKind;
  /**
   * The entity: a machine id, unit or application name, relation key; for `settings`,
   * `<relation id>:<unit>` (settings are keyed by relation id); a secret's id; empty for `model` and `resync`.
   */
  id: string;
}

const KINDS: ReadonlySet<string> = new Set<HintKind>([
  'machine',
  'unit',
  'application',
  'relation',
  'settings',
  'model',
  'secret',
  'resync',
]);

export const encodeHint = (hint: Hint): string => JSON.stringify({ kind: hint.kind, id: hint.id });

/** A message body back to a hint; undefined for anything else (an agent ignores it and resyncs). */
export function decodeHint(body: string | undefined): Hint | undefined {
  try {
    const value: unknown = JSON.parse(body ?? '');
    if (typeof value !== 'object' || value === null) return undefined;
    const { kind, id } = value as Record<string, unknown>;
    return typeof kind === 'string' && KINDS.has(kind) && typeof id === 'string' ? { kind: kind as HintKind, id } : undefined;
  } catch {
    return undefined;
  }
}
