// The parser fuzzer: hostile YAML (as a document, as charm metadata and as config.yaml) and
// hostile constraint strings, parsed in a child process (test/support/fuzz-parse-worker.ts) so
// that a parser that aborts the process — as the yaml library did on `[` nested 5,000 deep — is
// seen and counted rather than taking the test run down. Properties: every input is parsed or
// refused with the error a client is told (never anything else: a 5xx in the API), within
// PARSE_BOUND_MS, the process survives every input, and its memory stays under MAX_RSS_BYTES.
// DROVER_FUZZ_RUNS sets the number of inputs (DROVER_SOAK=1: 10,000); DROVER_FUZZ_SEED replays.
import { spawn } from 'node:child_process';
import fc from 'fast-check';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/cli.js';
import { hostileConstraints, hostileYaml } from '../support/fuzz-documents.js';
import { fuzzRuns, fuzzSeed } from '../support/fuzz-run.js';

const RUNS = fuzzRuns(300);
const SEED = fuzzSeed();
/** Parsing one bounded document takes milliseconds; this much means the bounds let something through. */
const PARSE_BOUND_MS = 3_000;
const MAX_RSS_BYTES = 1024 * 2 ** 20;
/** Inputs per child process (the inputs travel as one JSON document). */
const BATCH = 400;
/** A batch takes seconds (tens of milliseconds an input at most, on a loaded host); a child still running after this is hanging. */
const BATCH_BOUND_MS = 180_000;

interface Input {
  kind: 'yaml' | 'metadata' | 'config' | 'constraints';
  text: string;
}
interface Line {
  outcome: string;
  ms: number;
  rss: number;
}

const inputs: fc.Arbitrary<Input> = fc.oneof(
  fc.record({ kind: fc.constantFrom<Input['kind']>('yaml', 'metadata', 'config'), text: hostileYaml }),
  fc.record({ kind: fc.constant<Input['kind']>('constraints'), text: hostileConstraints }),
);

/** Runs a batch in a fresh child; the lines it wrote, and how it ended. */
function parseInChild(batch: Input[]): Promise<{ lines: Line[]; code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'test', 'support', 'fuzz-parse-worker.ts')], {
      cwd: REPO,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    // Past this the child is hanging: it is killed, and the input it was on is reported.
    const timer = setTimeout(() => child.kill('SIGKILL'), BATCH_BOUND_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const lines = out
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Line);
      resolve({ lines, code, signal, stderr });
    });
    child.stdin.end(JSON.stringify(batch));
  });
}

describe('parsers, fuzzed', () => {
  it(
    'hostile YAML and constraints are parsed or refused, within a bound, and never kill the process',
    async () => {
      const all = fc.sample(inputs, { numRuns: RUNS, seed: SEED });
      const counts = { inputs: 0, bad: 0, crashes: 0, hangs: 0, refused: 0, maxRss: 0, slowestMs: 0 };
      const failures: string[] = [];
      const show = (i: Input) => `${i.kind} (${i.text.length} chars): ${JSON.stringify(i.text.slice(0, 160))}`;
      for (let start = 0; start < all.length; start += BATCH) {
        const batch = all.slice(start, start + BATCH);
        const { lines, code, signal, stderr } = await parseInChild(batch);
        lines.forEach((line, i) => {
          counts.inputs++;
          counts.maxRss = Math.max(counts.maxRss, line.rss);
          counts.slowestMs = Math.max(counts.slowestMs, line.ms);
          if (line.outcome === 'refused') counts.refused++;
          else if (line.outcome !== 'ok') {
            counts.bad++;
            failures.push(`${show(batch[i]!)}\n→ ${line.outcome.slice(0, 600)}`);
          }
          if (line.ms > PARSE_BOUND_MS) {
            counts.hangs++;
            failures.push(`${show(batch[i]!)}\n→ took ${line.ms} ms`);
          }
        });
        if (lines.length < batch.length) {
          counts.crashes++;
          counts.inputs++;
          failures.push(`${show(batch[lines.length]!)}\n→ the process died (code ${code}, signal ${signal}): ${stderr.slice(-600)}`);
        }
      }
      console.info(
        `fuzz parsers (seed ${SEED}): ${counts.inputs} inputs, ${counts.bad} 5xx, ${counts.crashes} crashes, ${counts.hangs} hangs ` +
          `(${counts.refused} refused; slowest ${counts.slowestMs} ms, peak memory ${Math.round(counts.maxRss / 2 ** 20)} MiB)`,
      );
      expect(failures).toEqual([]);
      expect(counts.maxRss).toBeLessThan(MAX_RSS_BYTES);
    },
    Math.ceil(RUNS / BATCH) * BATCH_BOUND_MS + 60_000,
  );
});
