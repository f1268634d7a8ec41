// The one way drover parses YAML that comes from outside (charm metadata, config and actions,
// manifest.yaml and charmcraft.yaml, `relation-set --file`, the CLI's YAML files): bounded before
// the parser sees it. The yaml library compiles a regular expression over the text it reports
// on, and a document nesting thousands of flow collections (`[[[[…]]]]`) exhausts V8's regexp
// memory: the process aborts (exit 134), which no try/catch can stop. Two such deploy requests
// killed the local controller. Documents drover reads are small and shallow, so the bounds cost
// nothing real.
import { parse } from 'yaml';

/** Larger than any charm's metadata or any relation settings file. */
export const MAX_YAML_BYTES = 1024 * 1024;
/** Flow collections (`[`, `{`) nested deeper than this are refused before parsing. */
export const MAX_YAML_DEPTH = 64;
/** Aliases expanded at most (the yaml library's own bound, made explicit: "billion laughs"). */
const MAX_ALIASES = 100;

export class YamlTooLargeError extends Error {}

/** Parses one YAML document, or throws: a parse error, or a YamlTooLargeError saying which bound. */
export function parseYaml(source: string): unknown {
  if (Buffer.byteLength(source, 'utf8') > MAX_YAML_BYTES) {
    throw new YamlTooLargeError(`the document is larger than ${MAX_YAML_BYTES / 1024} KiB`);
  }
  if (flowDepth(source) > MAX_YAML_DEPTH) {
    throw new YamlTooLargeError(`collections are nested more than ${MAX_YAML_DEPTH} levels deep`);
  }
  return parse(source, { maxAliasCount: MAX_ALIASES });
}

/**
 * The deepest nesting of flow collections, outside quoted scalars and comments. A quote opens a
 * quoted scalar only where one may start (after space, `[`, `{`, `,` or `:`), so the apostrophe
 * in `don't` opens nothing. An approximation on odd input is safe either way: it only decides
 * whether the parser sees the text at all.
 */
function flowDepth(source: string): number {
  let depth = 0;
  let max = 0;
  let quote: string | undefined;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (quote !== undefined) {
      if (quote === '"' && c === '\\') i++;
      else if (c === quote) {
        if (quote === "'" && source[i + 1] === "'") i++;
        else quote = undefined;
      }
      continue;
    }
    const before = i === 0 ? ' ' : source[i - 1]!;
    if (c === '#' && /\s/.test(before)) {
      const end = source.indexOf('\n', i);
      if (end < 0) break;
      i = end;
    } else if ((c === '"' || c === "'") && /[\s[{,:]/.test(before)) {
      quote = c;
    } else if (c === '[' || c === '{') {
      max = Math.max(max, ++depth);
    } else if ((c === ']' || c === '}') && depth > 0) {
      depth--;
    }
  }
  return max;
}
