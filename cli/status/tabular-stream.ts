// `drover status` of a large model, printed as its pages arrive (shared/domain/status-page.ts):
// each section's rows are printed a page's worth at a time, the header with the first, and the
// columns sized for the rows seen so far (they only widen). A model whose status is one page prints
// exactly what renderTabular prints for its whole document.
import { renderTable, type Cell } from '../table.js';
import type { RelationDoc } from '#shared/domain/status-document.js';
import { STATUS_SECTIONS, type StatusPage, type StatusSection } from '#shared/domain/status-page.js';
import { ALIGN_RIGHT, appRow, HEADERS, machineRows, modelSection, relationRows, unitRows } from './tabular.js';
import type { CrossModelSections } from './cross-model.js';
import { OFFER_HEADER, offerRows, SAAS_HEADER, saasRows } from './tabular-cross-model.js';

export class TabularStatusPrinter {
  private readonly widths = new Map<StatusSection, number[]>();
  private readonly pending = new Map<StatusSection, Cell[][]>();
  private applications = 0;
  private machines = 0;
  private readonly relations: RelationDoc[] = [];

  private offersPrinted = false;

  /** `crossModel`: the SAAS and Offer sections, read before the pages (cross-model.ts). */
  constructor(
    private readonly write: (text: string) => void,
    private readonly options: { relations: boolean; colour: boolean; crossModel?: CrossModelSections },
  ) {}

  /** Prints what the page completes; call with every page in order. */
  add(page: StatusPage): void {
    if (page.model)
      this.write(
        renderTable(modelSection({ model: page.model, ...(page.controller ? { controller: page.controller } : {}) }), this.options.colour),
      );
    if (page.model) this.section(SAAS_HEADER, saasRows(this.options.crossModel?.['application-endpoints'] ?? {}));
    this.applications += Object.keys(page.applications ?? {}).length;
    this.machines += Object.keys(page.machines ?? {}).length;
    const rows: Record<StatusSection, Cell[][]> = {
      applications: Object.keys(page.applications ?? {})
        .sort()
        .map((name) => appRow(name, page.applications![name]!, page.scale?.[name] ?? { units: 0, ready: 0 })),
      units: unitRows((page.units ?? []).map((u) => [u.name, u.unit])),
      machines: machineRows(page.machines ?? {}),
      relations: [],
    };
    if (this.options.relations) this.relations.push(...(page.relations ?? []));
    for (const section of STATUS_SECTIONS) this.pending.set(section, [...(this.pending.get(section) ?? []), ...rows[section]]);
    // A section is printed up to where the pages have come: the ones before the next page's whole,
    // the one it goes on with as far as it has arrived, so the output flows in the sections' order.
    const current = page.section ? STATUS_SECTIONS.indexOf(page.section) : STATUS_SECTIONS.length;
    for (const [i, section] of STATUS_SECTIONS.entries()) {
      // Relations come in their keys' order and the table sorts them by provider: they are printed
      // once all have come (they grow with the applications, not with the units).
      if (i > current || (section === 'relations' && page.section)) break;
      // Juju prints the offers after the machines, before the integrations.
      if (section === 'relations' && !this.offersPrinted) {
        this.offersPrinted = true;
        this.section(OFFER_HEADER, offerRows(this.options.crossModel?.offers ?? {}));
      }
      this.flush(section);
    }
  }

  /** Whether the model had neither applications nor machines (after the last page). */
  get empty(): boolean {
    return this.applications === 0 && this.machines === 0;
  }

  /** A section printed whole at once, when it has rows. */
  private section(header: string[], rows: Cell[][]): void {
    if (rows.length) this.write(`\n${renderTable([header, ...rows], this.options.colour)}`);
  }

  private flush(section: StatusSection): void {
    const rows = section === 'relations' ? relationRows(this.relations.splice(0)) : (this.pending.get(section) ?? []);
    if (!rows.length) return;
    this.pending.set(section, []);
    const first = !this.widths.has(section);
    if (first) this.widths.set(section, []);
    this.write(
      `${first ? '\n' : ''}${renderTable(first ? [HEADERS[section], ...rows] : rows, this.options.colour, this.widths.get(section), ALIGN_RIGHT[section])}`,
    );
  }
}
