// The status document, as the API sends it and the CLI reads it: built by shared/domain/status.ts
// with Juju 2.9's keys (cmd/juju/status/formatted.go), one type for both ends.
import { applicationOfUnit } from './names.js';

export interface StatusValue {
  current: string;
  message?: string;
  since?: string;
  life?: string;
  version?: string;
}

export interface MachineDoc {
  'juju-status': StatusValue;
  'dns-name'?: string;
  'ip-addresses'?: string[];
  'instance-id': string;
  'machine-status': StatusValue;
  /** Juju 3's base; absent for a series drover does not know. */
  base?: { name: string; channel: string };
  series: string;
  constraints?: string;
  hardware?: string;
  'blocked-by'?: string[];
  /** The units wanted, while an add-unit -n adds them in the background (shared/domain/plans/background-units.ts). */
  scale?: number;
  [key: string]: unknown;
}

export interface UnitDoc {
  'workload-status': StatusValue;
  'juju-status': StatusValue;
  leader?: boolean;
  'upgrading-from'?: string;
  machine?: string;
  'open-ports'?: string[];
  'public-address'?: string;
  subordinates?: Record<string, UnitDoc>;
  'blocked-by'?: string[];
  /** The units wanted, while an add-unit -n adds them in the background (shared/domain/plans/background-units.ts). */
  scale?: number;
  [key: string]: unknown;
}

export interface ApplicationDoc {
  charm: string;
  series: string;
  'charm-name': string;
  'charm-rev': number;
  'charm-channel'?: string;
  version?: string;
  exposed: boolean;
  life?: string;
  'application-status': StatusValue;
  relations?: Record<string, string[]>;
  'subordinate-to'?: string[];
  units?: Record<string, UnitDoc>;
  'blocked-by'?: string[];
  /** The units wanted, while an add-unit -n adds them in the background (shared/domain/plans/background-units.ts). */
  scale?: number;
  [key: string]: unknown;
}

export interface RelationDoc {
  id: number;
  key: string;
  interface?: string;
  scope: string;
  life?: string;
  'blocked-by'?: string[];
}

export interface StatusDoc {
  model: {
    name: string;
    type?: string;
    controller: string;
    cloud?: string;
    region?: string;
    version?: string;
    sla?: string;
    /** `destroying` once the model is Dying, with its life. */
    'model-status'?: StatusValue;
    /** A Dying model: what is left in it, and what holds it (shared/domain/blocked-by.ts). */
    'blocked-by'?: string[];
    [key: string]: unknown;
  };
  machines: Record<string, MachineDoc>;
  applications: Record<string, ApplicationDoc>;
  relations?: RelationDoc[];
  controller?: { timestamp?: string };
  [key: string]: unknown;
}

/**
 * An application's entry with its principal units, where Juju's formatted applicationStatus has
 * them: after `subordinate-to`, before `version` (the entry is built without them, so that a paged
 * read can send an application before its units: shared/domain/status-page.ts).
 */
export function applicationWithUnits(app: ApplicationDoc, units: Record<string, UnitDoc>): ApplicationDoc {
  if (!Object.keys(units).length) return app;
  const { version, 'blocked-by': blockedBy, ...before } = app;
  return {
    ...before,
    units,
    ...(version !== undefined ? { version } : {}),
    ...(blockedBy !== undefined ? { 'blocked-by': blockedBy } : {}),
  };
}

/** Every unit in the document, subordinates included, with its application and principal. */
export function allUnits(doc: StatusDoc): { name: string; application: string; unit: UnitDoc; principal?: string }[] {
  const out: { name: string; application: string; unit: UnitDoc; principal?: string }[] = [];
  for (const [application, app] of Object.entries(doc.applications)) {
    for (const [name, unit] of Object.entries(app.units ?? {})) {
      out.push({ name, application, unit });
      for (const [subName, sub] of Object.entries(unit.subordinates ?? {})) {
        out.push({ name: subName, application: applicationOfUnit(subName), unit: sub, principal: name });
      }
    }
  }
  return out;
}
