// The Juju version whose charm contract drover keeps (docs/juju-compat.md): hooks see it as
// JUJU_VERSION (the ops framework enables features by it), a charm's `min-juju-version` and
// `assumes: juju >= x` are checked against it, and status reports it as the model's and every
// started agent's version (drover's agents are the agents of this Juju version).
export const JUJU_VERSION = '3.6.12';

/** Compares dotted versions numerically (`3.10` > `3.9`); a missing part counts as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}
