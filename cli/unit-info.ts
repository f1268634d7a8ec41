// A unit as Juju 3.6's `show-unit` writes it (https://github.com/juju/juju/blob/3.6/cmd/juju/application/showunit.go):
// what status knows of it, its workload version, and its relations' data, filtered by the
// command's --endpoint, --related-unit and --app as Juju filters them. jubilant's UnitInfo
// reads these keys.
import type { UnitDetails, UnitRelationInfo } from '#shared/api/unit-details.js';
import type { ApplicationDoc, UnitDoc } from '#shared/domain/status-document.js';
import { parseUnitName } from '#shared/domain/names.js';

export interface ShowUnitFilter {
  endpoint?: string;
  relatedUnit?: string;
  /** --app: only each relation's application data. */
  appOnly?: boolean;
}

/** Juju sorts related units naturally: mysql/2 before mysql/10. */
function byUnitNumber(a: string, b: string): number {
  const [x, y] = [parseUnitName(a), parseUnitName(b)];
  return x.application.localeCompare(y.application) || x.number - y.number;
}

function relationEntry(relation: UnitRelationInfo, filter: ShowUnitFilter): Record<string, unknown> | undefined {
  if (filter.endpoint && relation.endpoint !== filter.endpoint) return undefined;
  const base = {
    'relation-id': relation['relation-id'],
    endpoint: relation.endpoint,
    'related-endpoint': relation['related-endpoint'],
    'application-data': relation['application-data'],
  };
  if (filter.appOnly) return base;
  const related = Object.keys(relation['related-units'])
    .filter((name) => !filter.relatedUnit || name === filter.relatedUnit)
    .sort(byUnitNumber);
  const entry = {
    ...base,
    'local-unit': relation['local-unit'],
    ...(related.length ? { 'related-units': Object.fromEntries(related.map((n) => [n, relation['related-units'][n]!])) } : {}),
  };
  // Juju leaves out a relation that has nothing to show, unless its endpoint was asked for.
  const hasData =
    Object.keys(relation['application-data']).length > 0 || related.length > 0 || Object.keys(relation['local-unit'].data).length > 0;
  return filter.endpoint === relation.endpoint || hasData ? entry : undefined;
}

/**
 * One unit's entry. `machine` and `public-address` are the principal's for a subordinate, which
 * has no machine of its own in status.
 */
export function unitInfo(
  unit: UnitDoc,
  application: ApplicationDoc,
  details: UnitDetails,
  principal: UnitDoc | undefined,
  filter: ShowUnitFilter = {},
): Record<string, unknown> {
  const placed = principal ?? unit;
  const relations = details['relation-info'].map((r) => relationEntry(r, filter)).filter((r) => r !== undefined);
  return {
    ...(details['workload-version'] ? { 'workload-version': details['workload-version'] } : {}),
    ...(placed.machine !== undefined ? { machine: placed.machine } : {}),
    'opened-ports': unit['open-ports'] ?? [],
    ...(placed['public-address'] ? { 'public-address': placed['public-address'] } : {}),
    charm: application.charm,
    leader: unit.leader === true,
    life: unit['juju-status'].life ?? 'alive',
    ...(relations.length ? { 'relation-info': relations } : {}),
  };
}
