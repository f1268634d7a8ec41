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

/**
 * The commands a stuck entity's reasons tell the user to run (`run "drover resolved mysql/0"`),
 * in order: what `drover stuck` prints inside each reason, given on its own for the dashboard.
 */
export function remediesOf(reasons: readonly string[]): string[] {
  return reasons.flatMap((reason) => [...reason.matchAll(/"(drover [^"]+)"/g)].map((m) => m[1]!));
}
