// The status document, as the API sends it and the CLI prints it (`status --format json|yaml`):
// built by shared/domain/status.ts with Juju 3.6's keys, in the order Juju's formatter writes them
// (https://github.com/juju/juju/blob/3.6/cmd/juju/status/formatted.go), one type for both ends.
// drover's own additions are keys no Juju reader knows: `blocked-by` on whatever is Dying, and
// the top-level `relations` list with the relations' ids (Juju's formattedStatus has no
// top-level relations key).
import { applicationOfUnit } from './names.js';

/** Juju's statusInfoContents: `version` is the agent's, on juju-status once the agent runs. */
export interface StatusValue {
  current: string;
  message?: string;
  since?: string;
  version?: string;
  life?: string;
}

/** Juju 3's formattedBase: `{name: ubuntu, channel: "22.04"}`. */
export interface StatusBase {
  name: string;
  channel: string;
}

export interface MachineDoc {
  'juju-status': StatusValue;
  'dns-name'?: string;
  'ip-addresses'?: string[];
  'instance-id': string;
  'machine-status': StatusValue;
  'modification-status': StatusValue;
  /** Absent only for a series drover does not know. */
  base?: StatusBase;
  constraints?: string;
  hardware?: string;
  'blocked-by'?: string[];
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
  [key: string]: unknown;
}

/** One application related through an endpoint (Juju 3's applicationStatusRelation). */
export interface ApplicationRelation {
  'related-application': string;
  interface: string;
  scope: string;
}

export interface ApplicationDoc {
  charm: string;
  base?: StatusBase;
  'charm-origin': string;
  'charm-name': string;
  'charm-rev': number;
  'charm-channel'?: string;
  /** The units wanted, while an add-unit -n adds them in the background (shared/domain/plans/background-units.ts). */
  scale?: number;
  exposed: boolean;
  life?: string;
  'application-status': StatusValue;
  /** Endpoint → the applications related through it. */
  relations?: Record<string, ApplicationRelation[]>;
  'subordinate-to'?: string[];
  units?: Record<string, UnitDoc>;
  version?: string;
  /** Endpoint → space; `""` is the application's default. drover has one space, Juju's `alpha`. */
  'endpoint-bindings'?: Record<string, string>;
  'blocked-by'?: string[];
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

/** Go's string order, in which encoding/json writes a map's keys and Juju's tabular sorts names. */
export const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * An application's entry with its principal units, where Juju's formatted applicationStatus has
 * them: after `subordinate-to`, before `version` and `endpoint-bindings` (the entry is built
 * without them, so that a paged read can send an application before its units:
 * shared/domain/status-page.ts).
 */
export function applicationWithUnits(app: ApplicationDoc, units: Record<string, UnitDoc>): ApplicationDoc {
  if (!Object.keys(units).length) return app;
  const { version, 'endpoint-bindings': bindings, 'blocked-by': blockedBy, ...before } = app;
  return {
    ...before,
    units,
    ...(version !== undefined ? { version } : {}),
    ...(bindings !== undefined ? { 'endpoint-bindings': bindings } : {}),
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
