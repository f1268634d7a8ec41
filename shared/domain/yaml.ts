// The one way drover parses YAML that comes from outside (charm metadata, config and actions,
// manifest.yaml and charmcraft.yaml, `relation-set --file`, the CLI's YAML files): bounded before
// the parser sees it. The yaml library compiles a regular expression over the text it reports
// on, and a document nesting thousands of flow collections (`[[[[…]]]]`) exhausts V8's regexp
// memory: the process aborts (exit 134), which no try/catch can stop. Two such deploy requests
// killed the local controller. Documents drover reads are small and shallow, so the bounds cost
// nothing real.
import { CST, isScalar, Lexer, parse, parseDocument, visit } from 'yaml';

/** Larger than any charm's metadata or any relation settings file. */
export const MAX_YAML_BYTES = 1024 * 1024;
/** Flow collections (`[`, `{`) nested deeper than this are refused before parsing. */
export const MAX_YAML_DEPTH = 64;
/**
 * Block collections (`- - - x`, or keys indented ever deeper) start at most this many columns in,
 * so they nest at most this deep: the yaml library composes them recursively, and `- ` nested
 * 1,000 deep (2 KB) ran it out of stack and then aborted the process, as deep flow collections did.
 */
export const MAX_YAML_BLOCK_COLUMN = 256;
/** Aliases expanded at most (the yaml library's own bound, made explicit: "billion laughs"). */
const MAX_ALIASES = 100;

export class YamlTooLargeError extends Error {}

/** Parses one YAML document, or throws: a parse error, or a YamlTooLargeError saying which bound. */
export function parseYaml(source: string): unknown {
  checkBounds(source);
  return parse(source, { maxAliasCount: MAX_ALIASES });
}

/**
 * The same, every scalar as it is written, as Go's yaml.v2 reads one into a string (Juju's
 * relation-set and state-set `--file`, read into map[string]string): `1.50`, `True` and `0x10`
 * stay those strings rather than becoming 1.5, true and 16. Null stays null.
 */
export function parseYamlScalarsAsText(source: string): unknown {
  checkBounds(source);
  const doc = parseDocument(source);
  if (doc.errors.length > 0) throw doc.errors[0]!;
  visit(doc, {
    Scalar(_key, node) {
      if (isScalar(node) && node.value !== null && typeof node.value !== 'string') node.value = node.source ?? String(node.value);
    },
  });
  return doc.toJS({ maxAliasCount: MAX_ALIASES });
}

/**
 * The same, for a file a user writes whole (a bundle): every error the parser finds, each with
 * its line, rather than the first. A duplicated key is one of them.
 */
export function parseYamlReportingAll(source: string): { value: unknown; errors: string[] } {
  checkBounds(source);
  const doc = parseDocument(source, { prettyErrors: true });
  const errors = doc.errors.map((e) => e.message.split('\n')[0]!.replace(/:$/, ''));
  return { value: errors.length ? undefined : doc.toJS({ maxAliasCount: MAX_ALIASES }), errors };
}

function checkBounds(source: string): void {
  if (Buffer.byteLength(source, 'utf8') > MAX_YAML_BYTES) {
    throw new YamlTooLargeError(`the document is larger than ${MAX_YAML_BYTES / 1024} KiB`);
  }
  const { flow, blockColumn } = nesting(source);
  if (flow > MAX_YAML_DEPTH) throw new YamlTooLargeError(`collections are nested more than ${MAX_YAML_DEPTH} levels deep`);
  if (blockColumn > MAX_YAML_BLOCK_COLUMN) {
    throw new YamlTooLargeError(`block collections are indented more than ${MAX_YAML_BLOCK_COLUMN} columns deep`);
  }
}

/** The lexer's markers (document, scalar, flow error, byte order): not text, so no columns. */
const MARKERS = new Set(['doc-mode', 'scalar', 'flow-error-end', 'byte-order-mark']);

/**
 * How deep the document nests, as YAML itself reads the text: the yaml library's own lexer,
 * which is iterative (only composing the document recurses), so it tells a collection from
 * brackets or dashes in a quoted scalar, a comment or a block scalar exactly. A count by hand
 * guessed where quotes open and could be fooled: in `a: b 'x` the apostrophe opens nothing (it is
 * inside a plain scalar), yet it hid the 5,000 `[` of the next line from the bound.
 *
 * Flow collections are counted. Block collections are bounded by where they start: each one
 * nested in another starts at a greater column (`- - - x` at 0, 2, 4), so the largest column of
 * a line's indentation or of a `-` or `?` indicator bounds their depth.
 */
function nesting(source: string): { flow: number; blockColumn: number } {
  let depth = 0;
  let flow = 0;
  let blockColumn = 0;
  let column = 0;
  for (const token of new Lexer().lex(source)) {
    const type = CST.tokenType(token);
    if (type !== null && MARKERS.has(type)) continue;
    if (type === 'flow-seq-start' || type === 'flow-map-start') flow = Math.max(flow, ++depth);
    else if ((type === 'flow-seq-end' || type === 'flow-map-end') && depth > 0) depth--;
    else if (depth === 0 && (type === 'seq-item-ind' || type === 'explicit-key-ind')) blockColumn = Math.max(blockColumn, column);
    // A line's indentation (the lexer gives a block scalar's content as one such token: only its
    // leading blanks are indentation).
    else if (depth === 0 && type === 'space' && column === 0) blockColumn = Math.max(blockColumn, /^[ \t]*/.exec(token)![0].length);
    const newline = token.lastIndexOf('\n');
    column = newline === -1 ? column + token.length : token.length - newline - 1;
  }
  return { flow, blockColumn };
}
