// A unit's settings in one relation (relation-set): versioned, so other units' agents can tell
// a change from the one they already saw.
//
// charms-in-action.txt: "a null setting change can be safely ignored, and will not cause other units
// to react" — a write that changes nothing is not written, and its version does not move.
import type { RelationSettings } from '../entities.js';
import { notFound } from '../errors.js';
import { checkSettingsSize } from '../item-size.js';
import { sameEntries } from '../own-keys.js';
import { done, refs, type Plan } from '../plan.js';

export interface SettingsResult {
  settings: Record<string, string>;
  version: number;
}

/** Juju's words for missing settings; `relation` is the relation's key (or `relation <id>` once it is gone). */
export const settingsNotFound = (verb: 'read' | 'write', unit: string, relation: string) =>
  notFound(`cannot ${verb} settings for unit "${unit}" in relation "${relation}": unit "${unit}": settings not found`);

/** Applies `changes` to `settings`: an empty value deletes the key, as `relation-set key=` does. */
export function applySettingsChanges(settings: Record<string, string>, changes: Record<string, string>): Record<string, string> {
  const next = { ...settings };
  for (const [key, value] of Object.entries(changes)) {
    if (value === '') delete next[key];
    else next[key] = value;
  }
  return next;
}

export const sameSettings = (a: Record<string, string>, b: Record<string, string>) => sameEntries(a, b);

export function planWriteSettings(
  current: RelationSettings | undefined,
  target: { relationId: number; unit: string; relationLabel: string },
  changes: Record<string, string>,
): Plan<SettingsResult> {
  if (!current) throw settingsNotFound('write', target.unit, target.relationLabel);
  const settings = applySettingsChanges(current.settings, changes);
  if (sameSettings(settings, current.settings)) return done({ settings: current.settings, version: current.version });
  checkSettingsSize(settings, `the settings of unit "${target.unit}" in relation "${target.relationLabel}"`);
  const version = current.version + 1;
  return {
    changes: [
      {
        op: 'update',
        ref: refs.settings(target.relationId, target.unit),
        set: { settings, version },
        // A concurrent write must not be lost: plan again on the version it produced.
        expect: { equals: { version: current.version } },
      },
    ],
    result: { settings, version },
  };
}
