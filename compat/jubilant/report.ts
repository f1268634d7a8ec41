// The harness's verdict: one row per jubilant test, from the JSON lines drover_report.py writes
// (a line per failed or skipped phase, and one per call), as a markdown table that can be pasted
// into docs/juju-compat.md.
export interface PhaseReport {
  nodeid: string;
  when: 'setup' | 'call' | 'teardown';
  outcome: 'passed' | 'failed' | 'skipped';
  message: string;
  detail?: string;
  duration: number;
}

export interface Row {
  test: string;
  result: string;
  failure: string;
}

const PYTEST_TIMEOUT = /^Failed: Timeout >/;

export function parseReports(jsonLines: string): PhaseReport[] {
  return jsonLines
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as PhaseReport);
}

/** One row per collected test, in collection order: what happened to it, or why it was not run. */
export function rows(collected: string[], reports: PhaseReport[], whyNotRun: (nodeid: string) => string | undefined): Row[] {
  return collected.map((nodeid) => {
    const test = nodeid.replace(/^tests\/integration\//, '');
    const reason = whyNotRun(nodeid);
    if (reason) return { test, result: 'not run', failure: reason };
    const phases = reports.filter((r) => r.nodeid === nodeid);
    if (!phases.length) return { test, result: 'no result', failure: 'pytest reported nothing (interrupted?)' };
    const setup = phases.find((p) => p.when === 'setup' && p.outcome !== 'passed');
    const call = phases.find((p) => p.when === 'call');
    const teardown = phases.find((p) => p.when === 'teardown' && p.outcome === 'failed');
    let row: Row;
    if (setup) row = { test, result: setup.outcome === 'skipped' ? 'skipped' : verdict(setup, 'error in setup'), failure: setup.message };
    else if (call) row = { test, result: call.outcome === 'failed' ? verdict(call, 'failed') : call.outcome, failure: call.message };
    else row = { test, result: 'no result', failure: '' };
    if (teardown) {
      row.result += row.result === 'passed' ? ', error in teardown' : ' + error in teardown';
      row.failure = row.failure ? `${row.failure}; teardown: ${teardown.message}` : `teardown: ${teardown.message}`;
    }
    return row;
  });
}

/** pytest-timeout's failures say `Failed: Timeout >Ns`: the row says so plainly. */
function verdict(phase: PhaseReport, label: string): string {
  return PYTEST_TIMEOUT.test(phase.message) ? `${label} (timeout)` : label;
}

/** A markdown table: `|` and newlines in cells escaped, cells cut to `width` characters. */
export function markdownTable(table: Row[], width = 400): string {
  const cell = (text: string) => {
    const one = text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
    return one.length > width ? `${one.slice(0, width - 1)}…` : one;
  };
  return [
    '| test | result | first line of the failure |',
    '| --- | --- | --- |',
    ...table.map((r) => `| ${cell(r.test)} | ${cell(r.result)} | ${cell(r.failure)} |`),
  ].join('\n');
}

/** `N passed, N failed, N not run`: the counts of each result, in a stable order. */
export function summary(table: Row[]): string {
  const counts = new Map<string, number>();
  for (const r of table) counts.set(r.result, (counts.get(r.result) ?? 0) + 1);
  return [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([result, n]) => `${n} ${result}`)
    .join(', ');
}
