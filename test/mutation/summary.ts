// The mutation score per module group, as docs/testing.md records it, from the JSON reports
// `npm run test:mutation` writes: `npx tsx test/mutation/summary.ts [report.json ...]` (by default
// both of reports/mutation/, those that exist).
// With --survivors it also lists each group's surviving mutants (file:line, mutator, replacement).
import { existsSync, readFileSync } from 'node:fs';

interface Mutant {
  status: string;
  mutatorName: string;
  replacement?: string;
  location: { start: { line: number } };
}

const GROUPS: [string, (path: string) => boolean][] = [
  ['Lifecycle plans', (p) => p.startsWith('shared/domain/plans/')],
  ['Agent authorization', (p) => p === 'functions/api/agent-authorization.ts'],
  ['Hook-tool arguments', (p) => p.startsWith('agent/hook-tools/')],
];

const args = process.argv.slice(2);
const survivors = args.includes('--survivors');
const named = args.filter((a) => !a.startsWith('--'));
const reportPaths = named.length
  ? named
  : ['reports/mutation/plans-and-hook-tools.json', 'reports/mutation/agent-authorization.json'].filter((p) => existsSync(p));
const report = { files: {} as Record<string, { mutants: Mutant[] }> };
for (const path of reportPaths) Object.assign(report.files, (JSON.parse(readFileSync(path, 'utf8')) as typeof report).files);

const count = (mutants: Mutant[], status: string) => mutants.filter((m) => m.status === status).length;

/** Stryker's mutation score: detected (killed or timed out) over all valid mutants, uncovered ones included. */
function row(name: string, mutants: Mutant[]): string {
  const killed = count(mutants, 'Killed');
  const timeout = count(mutants, 'Timeout');
  const survived = count(mutants, 'Survived');
  const noCoverage = count(mutants, 'NoCoverage');
  const valid = killed + timeout + survived + noCoverage;
  const score = valid === 0 ? 'n/a' : ((100 * (killed + timeout)) / valid).toFixed(2);
  return `| ${name} | ${valid} | ${killed} | ${survived} | ${noCoverage} | ${timeout} | ${score} |`;
}

console.log('| Module group | Mutants | Killed | Survived | No coverage | Timeout | Score % |');
console.log('|---|--:|--:|--:|--:|--:|--:|');
const all: Mutant[] = [];
for (const [name, inGroup] of GROUPS) {
  const files = Object.entries(report.files).filter(([path]) => inGroup(path));
  const mutants = files.flatMap(([, file]) => file.mutants);
  all.push(...mutants);
  console.log(row(name, mutants));
}
console.log(row('**All**', all));

if (survivors) {
  for (const [path, file] of Object.entries(report.files)) {
    for (const m of file.mutants.filter((m) => m.status === 'Survived')) {
      console.log(`${path}:${m.location.start.line} ${m.mutatorName} ${JSON.stringify(m.replacement ?? '')}`);
    }
  }
}
