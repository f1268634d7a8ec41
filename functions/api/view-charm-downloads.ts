// Download URLs a machine's view carries: for each application whose units on the machine have
// not deployed its charm yet (a new unit, an upgrade), its archive's URL. The deployer then
// downloads a new unit's charm without asking `charm-url` first: one agent request less a unit
// start. The same archives `charm-url` would hand this agent: those of its own units'
// applications (functions/api/agent-authorization.ts, `charm`). A URL is short-lived
// (CHARM_URL_SECONDS); an agent whose view's URL has expired asks `charm-url` for a fresh one.
import type { CharmStore } from '#shared/charmstore/charm-store.js';
import type { Application, Unit } from '#shared/domain/entities.js';

/** Archive sha256 → URL, for the applications of `units` whose charm some of them still lack. */
export async function charmDownloadsFor(charms: CharmStore, units: Unit[], applications: Application[]): Promise<Record<string, string>> {
  const wanted = new Set<string>();
  for (const application of applications) {
    if (!application.charmArchive) continue;
    if (units.some((unit) => unit.application === application.name && unit.charmUrl !== application.charmUrl))
      wanted.add(application.charmArchive);
  }
  const downloads: Record<string, string> = {};
  for (const archive of wanted) downloads[archive] = await charms.downloadUrl(archive);
  return downloads;
}
