// A bundle application's `to`, unit by unit, as Juju's BundleData documents it (bundledata.go in
// https://github.com/juju/charm): each directive is a machine of the bundle's `machines`, `new`,
// or a unit of another application (`wordpress/0`; `wordpress` alone is one more than the same
// application's previous directive, or 0). With fewer directives than units the last is
// replicated; with none, `new` is. Containers (`lxd:0`) are not something drover makes.

export type Placement = { kind: 'new' } | { kind: 'machine'; machine: string } | { kind: 'unit'; application: string; index: number };

const DIRECTIVE = /^(?:([a-z]+):)?(?:([a-z][a-z0-9]*(?:-[a-z0-9]*[a-z][a-z0-9]*)*)(?:\/(\d+))?|(\d+))$/;

export interface ParsedDirective {
  container?: string;
  placement: Placement | { kind: 'application'; application: string };
}

/** One directive, or an error in Juju's words. */
export function parseDirective(text: string): ParsedDirective | { error: string } {
  const m = DIRECTIVE.exec(text);
  if (!m) return { error: `invalid placement syntax "${text}"` };
  const [, container, application, unit, machine] = m;
  const base = container ? { container } : {};
  if (machine !== undefined) return { ...base, placement: { kind: 'machine', machine } };
  if (application === 'new')
    return unit === undefined ? { ...base, placement: { kind: 'new' } } : { error: `invalid placement syntax "${text}"` };
  if (unit !== undefined) return { ...base, placement: { kind: 'unit', application: application!, index: Number(unit) } };
  return { ...base, placement: { kind: 'application', application: application! } };
}

/** The placement of each of `numUnits` units, directives already checked by verify.ts. */
export function unitPlacements(to: string[], numUnits: number): Placement[] {
  const out: Placement[] = [];
  const nextIndex = new Map<string, number>();
  for (let i = 0; i < numUnits; i++) {
    const text = to[Math.min(i, to.length - 1)];
    const parsed = text === undefined ? { placement: { kind: 'new' as const } } : parseDirective(text);
    if ('error' in parsed) throw new Error(parsed.error);
    const p = parsed.placement;
    if (p.kind === 'application' || p.kind === 'unit') {
      const index = p.kind === 'unit' ? p.index : (nextIndex.get(p.application) ?? 0);
      nextIndex.set(p.application, index + 1);
      out.push({ kind: 'unit', application: p.application, index });
    } else out.push(p);
  }
  return out;
}
