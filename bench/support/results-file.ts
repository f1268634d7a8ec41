// Writes one section of bench/RESULTS.md, keeping the file's other sections as they are, and
// formats the file as `npm run lint` (prettier --check) expects.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'RESULTS.md');

/** Prints a bench's section and records it in bench/RESULTS.md. */
export async function publishSection(heading: string, body: string): Promise<void> {
  console.log(`${heading}\n\n${body}`);
  await writeSection(RESULTS, heading, body);
}

/** The line a section opens with: when and on what it ran (`setup`), how long, and how busy the host was. */
export function runLine(began: number, loadBefore: number, setup: string): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return (
    `Run ${new Date().toISOString().slice(0, 10)}: node ${process.version}, nproc ${availableParallelism()} (${cpu}), ${setup}. ` +
    `Whole run ${((Date.now() - began) / 1000).toFixed(0)} s; 1-minute load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after.`
  );
}

export async function writeSection(path: string, heading: string, body: string): Promise<void> {
  const section = `${heading}\n\n${body.trim()}\n`;
  let text: string;
  if (!existsSync(path)) {
    text = `# Benchmark results\n\n${section}`;
  } else {
    const old = readFileSync(path, 'utf8');
    const start = old.indexOf(`${heading}\n`);
    if (start === -1) {
      text = `${old.trimEnd()}\n\n${section}`;
    } else {
      const after = old.indexOf('\n## ', start + heading.length);
      text = `${old.slice(0, start)}${section}${after === -1 ? '' : `\n${old.slice(after + 1)}`}`;
    }
  }
  const options = (await resolveConfig(path)) ?? {};
  writeFileSync(path, await format(text, { ...options, filepath: path }));
}
