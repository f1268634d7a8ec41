// The bases a charm declares outside metadata.yaml, as series: charmcraft writes them to
// manifest.yaml in a packed charm (`bases: [{name: ubuntu, channel: "22.04", architectures:
// [amd64]}]`), and a charm's source directory has them in charmcraft.yaml, either Charmcraft 2's
// `bases` (short `{name, channel}` or long `{build-on: [...], run-on: [...]}`) or Charmcraft 3's
// `base: ubuntu@22.04`. Juju 3 reads manifest.yaml (https://github.com/juju/juju/blob/3.6/internal/charm/manifest.go);
// charmcraft.yaml is read for directories charmcraft has not packed yet.
import { parseYaml } from './yaml.js';
import { baseToSeries, parseBase, type Base } from './bases.js';
import { invalidArgument, errorMessage } from './errors.js';

export interface BaseFiles {
  manifest?: string;
  charmcraft?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readDoc(file: string, source: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = parseYaml(source);
  } catch (e) {
    throw invalidArgument(`${file}: invalid YAML: ${errorMessage(e).split('\n')[0]}`);
  }
  if (doc == null) return {};
  if (!isRecord(doc)) throw invalidArgument(`${file}: must be a YAML mapping`);
  return doc;
}

/** `{name: ubuntu, channel: "22.04"}` (a number channel, `22.04` unquoted, is YAML's 22.04). */
function baseOf(file: string, where: string, value: unknown): Base {
  if (!isRecord(value)) throw invalidArgument(`${file}: "${where}" must be a mapping with "name" and "channel"`);
  const { name, channel } = value;
  if (typeof name !== 'string' || name === '') throw invalidArgument(`${file}: "${where}.name" is required`);
  if (typeof channel !== 'string' && typeof channel !== 'number') throw invalidArgument(`${file}: "${where}.channel" is required`);
  // An unquoted 22.10 is the number 22.1: keep two decimals as Ubuntu versions have.
  const text = typeof channel === 'number' ? channel.toFixed(2) : channel;
  return { os: name, channel: text.split('/')[0]! };
}

function seriesOf(file: string, bases: Base[]): string[] {
  const series: string[] = [];
  for (const base of bases) {
    let name: string;
    try {
      name = baseToSeries(base);
    } catch (e) {
      throw invalidArgument(`${file}: ${errorMessage(e)}`);
    }
    if (!series.includes(name)) series.push(name);
  }
  return series;
}

function manifestBases(source: string): Base[] {
  const doc = readDoc('manifest.yaml', source);
  if (doc.bases == null) return [];
  if (!Array.isArray(doc.bases)) throw invalidArgument('manifest.yaml: "bases" must be a list of bases');
  return doc.bases.map((b, i) => baseOf('manifest.yaml', `bases[${i}]`, b));
}

function charmcraftBases(source: string): Base[] {
  const file = 'charmcraft.yaml';
  const doc = readDoc(file, source);
  if (typeof doc.base === 'string') {
    try {
      return [parseBase(doc.base)];
    } catch (e) {
      throw invalidArgument(`${file}: "base" ${errorMessage(e)}`);
    }
  }
  if (doc.bases == null) return [];
  if (!Array.isArray(doc.bases)) throw invalidArgument(`${file}: "bases" must be a list of bases`);
  return doc.bases.flatMap((entry, i) => {
    // The long form: where it builds and where it runs; a charm runs on its run-on bases.
    if (isRecord(entry) && ('run-on' in entry || 'build-on' in entry)) {
      const runOn = entry['run-on'] ?? entry['build-on'];
      if (!Array.isArray(runOn)) throw invalidArgument(`${file}: "bases[${i}].run-on" must be a list of bases`);
      return runOn.map((b, j) => baseOf(file, `bases[${i}].run-on[${j}]`, b));
    }
    return [baseOf(file, `bases[${i}]`, entry)];
  });
}

/**
 * The series of the bases the charm declares: manifest.yaml wins (it is what charmcraft packed),
 * then charmcraft.yaml; none if neither declares any.
 */
export function declaredBaseSeries(files: BaseFiles): { file: string; series: string[] } | undefined {
  if (files.manifest !== undefined) {
    const bases = manifestBases(files.manifest);
    if (bases.length) return { file: 'manifest.yaml', series: seriesOf('manifest.yaml', bases) };
  }
  if (files.charmcraft !== undefined) {
    const bases = charmcraftBases(files.charmcraft);
    if (bases.length) return { file: 'charmcraft.yaml', series: seriesOf('charmcraft.yaml', bases) };
  }
  return undefined;
}
