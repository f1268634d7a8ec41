// The applications section of a status page: each application's entry with its summary (derived
// status, version, Scale) from a projection of its units, an application of many units summarized
// across pages.
import type { Application, Relation } from '../../../domain/entities.js';
import { refs } from '../../../domain/plan.js';
import { applicationDoc, emptySummary, summarizeUnits, type SummaryUnit, type UnitsSummary } from '../../../domain/status.js';
import { collections } from '../../engine/keys.js';
import { collectionCursorAfter, getProjected, listCollection } from '../../engine/reads.js';
import { listUnits, unitCursorAfter } from '../../engine/unit-listing.js';
import type { Position } from '../status-page-cursor.js';
import { bytes, chunks, countIn, fits, hasEntities, readEach, readPresenceOf, type Reader } from './page-reader.js';

const SUMMARY_FIELDS = ['name', 'life', 'machine', 'agentStatus', 'workloadStatus', 'workloadVersion', 'workloadVersionSince'] as const;

/** Folds an application's units into its summary from `after`, until its end or the page's budget: the cursor to go on from, if any. */
async function summarize(
  reader: Reader,
  application: Application,
  from: { after?: string; summary: UnitsSummary },
): Promise<{ summary: UnitsSummary; after?: string }> {
  const { store } = reader;
  let { summary, after } = from;
  for (;;) {
    const listed = await listUnits(store, application, {
      limit: Math.max(1, Math.min(1000, reader.budget.summaryUnits)),
      ...(after ? { cursor: after } : {}),
      run: reader.bounded,
    });
    const projected = await Promise.all(
      chunks(listed.items).map((batch) => reader.bounded(() => getProjected<SummaryUnit>(store, batch, SUMMARY_FIELDS))),
    );
    const units = projected.flat().filter((u): u is SummaryUnit => u !== undefined);
    const lastSeen = await readPresenceOf(
      reader,
      units.map((u) => u.machine),
    );
    summary = summarizeUnits(summary, units, { presence: { ...reader.presence, lastSeen }, now: reader.now });
    reader.budget.summaryUnits -= listed.items.length;
    if (!listed.cursor) return { summary };
    const last = listed.items[listed.items.length - 1];
    after = unitCursorAfter(store, application, last?.kind === 'unit' ? last.name : '');
    if (reader.budget.summaryUnits <= 0) return { summary, after };
  }
}

export async function applicationsSection(reader: Reader, position: Position): Promise<Position | undefined> {
  const { store, page } = reader;
  let after = position.after;
  let partial = position.partial;
  while (reader.budget.entities > 0) {
    const listed = await listCollection(store, collections.applications(store.model), {
      limit: Math.min(reader.budget.entities, 100),
      ...(after ? { cursor: after } : {}),
    });
    const apps = await readEach<Application>(reader, listed.items);
    // As many whole applications as the summary budget holds; the first one in any case.
    let planned = 0;
    let units = 0;
    while (planned < apps.length && (planned === 0 || units + (apps[planned]?.unitCount ?? 0) <= reader.budget.summaryUnits))
      units += apps[planned++]?.unitCount ?? 0;
    const taken = apps.slice(0, planned);
    const relationsOf = await readEach<Relation>(reader, [...new Set(taken.flatMap((a) => a?.relations ?? []))].map(refs.relation));
    const relations = new Map(relationsOf.filter((r): r is Relation => r !== undefined).map((r) => [r.key, r]));
    const summaries = await Promise.all(
      taken.map(async (app) => {
        if (!app) return undefined;
        const resumed = partial?.name === app.name ? { after: partial.after, summary: partial.summary } : { summary: emptySummary() };
        return summarize(reader, app, resumed);
      }),
    );
    partial = undefined;
    for (const [i, app] of taken.entries()) {
      const ref = listed.items[i]!;
      const summarized = summaries[i];
      if (app && summarized) {
        if (summarized.after)
          return {
            section: 'applications',
            ...(after ? { after } : {}),
            partial: { name: app.name, after: summarized.after, summary: summarized.summary },
          };
        const doc = applicationDoc(
          app,
          app.relations.flatMap((key) => relations.get(key) ?? []),
          summarized.summary,
        );
        const scale = { units: summarized.summary.units, ready: summarized.summary.ready };
        if (!fits(reader, bytes(doc) + bytes(scale) + 2 * bytes(app.name) + 8, hasEntities(page)))
          return { section: 'applications', ...(after ? { after } : {}) };
        (page.applications ??= {})[app.name] = doc;
        (page.scale ??= {})[app.name] = scale;
        if (reader.left) reader.left.applications = countIn(reader.left.applications, app.name);
      }
      after = collectionCursorAfter(store, ref);
    }
    if (planned < apps.length) return { section: 'applications', after };
    if (!listed.cursor) return undefined;
  }
  return { section: 'applications', ...(after ? { after } : {}) };
}
