// Writes one section of bench/RESULTS.md, keeping the file's other sections as they are, and
// formats the file as `npm run lint` (prettier --check) expects.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';

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
