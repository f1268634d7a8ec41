// What the API's show-unit answers (shared/state/queries/unit-relation-info.ts reads it), in the
// keys of Juju 3.6's show-unit (https://github.com/juju/juju/blob/3.6/cmd/juju/application/showunit.go).

export interface UnitRelationData {
  'in-scope': boolean;
  data: Record<string, string>;
}

export interface UnitRelationInfo {
  'relation-id': number;
  endpoint: string;
  'related-endpoint': string;
  'application-data': Record<string, string>;
  'local-unit': UnitRelationData;
  'related-units': Record<string, UnitRelationData>;
}

export interface UnitDetails {
  'workload-version'?: string;
  'relation-info': UnitRelationInfo[];
}
