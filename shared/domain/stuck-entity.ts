// One entry of `drover stuck` (shared/state/queries/stuck.ts reads them): an entity not Alive, or a
// machine in provisioning error, for how long, and why. What the API answers, the CLI prints and
// the dashboard shows. Free of other modules, so the dashboard's page can take it.

export interface StuckEntity {
  entity: string;
  /** The entity's kind (EntityRef's, shared/domain/plan.ts): machine, unit, application, relation, model. */
  kind: string;
  life: string;
  since: string;
  /** Seconds since it left Alive (or went into provisioning error). */
  ageSeconds: number;
  reasons: string[];
}
