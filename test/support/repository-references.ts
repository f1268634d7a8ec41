// What a clone of this repository can follow. Every reference in a tracked text file must point at
// something the clone contains or at a public URL: docs, comments and tests once cited design notes
// kept in a folder beside the repository, which no reader outside the team could open.
//
// Pure functions over (path, text) pairs and an `exists` predicate, so that a test can show each
// rule catching a bad reference as well as passing the repository as it is.
import { posix } from 'node:path';

export interface RepoFile {
  path: string;
  text: string;
}

export interface Finding {
  path: string;
  line: number;
  what: string;
}

/** Whether a repository-relative path (file or directory) exists in the clone. */
export type Exists = (path: string) => boolean;

// Spelled in pieces so that this file, which the scan also reads, does not match itself.
const OUTSIDE_NOTES: { pattern: RegExp; what: string }[] = [
  { pattern: new RegExp('\\b' + 'DESI' + 'GN' + '\\b'), what: 'cites the design notes kept outside the repository' },
  { pattern: new RegExp('reference' + ' §'), what: 'cites a section of a behaviour reference kept outside the repository' },
  { pattern: new RegExp('§' + '\\d'), what: 'cites a numbered section of a document the repository does not hold' },
  { pattern: new RegExp('juju-' + 'behaviour'), what: 'cites a behaviour reference kept outside the repository' },
  { pattern: new RegExp('seeds' + '/'), what: 'cites a folder of documents kept outside the repository' },
];

/** A parent-relative path into a folder named `shared`: how the notes beside the repository were cited, and how code imports shared/. */
const PARENT_SHARED = new RegExp('(?<![\\w./-])((?:\\.\\./)+' + 'shared(?:/[\\w.-]+)*)', 'g');

const MARKDOWN_LINK = /\[[^\]]*\]\(([^)\s]+)\)/g;

const CODE_FILE = /\.(?:ts|mts|mjs|js)$/;
const COMMENT_LINE = /^\s*(?:\/\/|\/\*\*?|\*)/;
const TXT_NAME = /\b[A-Za-z][\w-]*\.txt\b/g;

function* lines(file: RepoFile): Generator<[number, string]> {
  const all = file.text.split('\n');
  for (let i = 0; i < all.length; i++) yield [i + 1, all[i] as string];
}

/** Lines that cite the notes, references or documents that lived outside the repository. */
export function findOutsideNotes(files: RepoFile[]): Finding[] {
  const found: Finding[] = [];
  for (const file of files) {
    for (const [line, text] of lines(file)) {
      // One finding a line: the first thing it cites that a clone cannot follow.
      const hit = OUTSIDE_NOTES.find(({ pattern }) => pattern.test(text));
      if (hit) found.push({ path: file.path, line, what: hit.what });
    }
  }
  return found;
}

/** A relative path as code resolves it: an import of `x.js` is the source file `x.ts`. */
function resolves(path: string, exists: Exists): boolean {
  return (
    exists(path) ||
    (path.endsWith('.js') && exists(path.replace(/\.js$/, '.ts'))) ||
    (path.endsWith('.mjs') && exists(path.replace(/\.mjs$/, '.mts')))
  );
}

/** Parent-relative paths into `shared` that leave the repository or name nothing in it. */
export function findBrokenParentPaths(files: RepoFile[], exists: Exists): Finding[] {
  const found: Finding[] = [];
  for (const file of files) {
    for (const [line, text] of lines(file)) {
      for (const match of text.matchAll(PARENT_SHARED)) {
        const target = posix.normalize(posix.join(posix.dirname(file.path), match[1] as string));
        if (target.startsWith('..')) found.push({ path: file.path, line, what: `${match[1]} leaves the repository` });
        else if (!resolves(target, exists)) found.push({ path: file.path, line, what: `${match[1]} (${target}) does not exist` });
      }
    }
  }
  return found;
}

/**
 * Mentions of files by their path in the repository (`docs/agents.md`, `shared/state/engine/commit.ts`)
 * that name no file of the clone. `topFolders` are the repository's own top-level folders; a path
 * inside a URL (preceded by `/`) is someone else's and is not checked.
 */
export function findMissingPathMentions(files: RepoFile[], topFolders: string[], exists: Exists): Finding[] {
  if (topFolders.length === 0) return [];
  const folders = topFolders.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const mention = new RegExp(`(?<![\\w./@~-])((?:${folders})/[\\w./-]*\\w\\.(?:ts|mts|mjs|md|yaml|json|sh|golden))\\b`, 'g');
  const found: Finding[] = [];
  for (const file of files) {
    for (const [line, text] of lines(file)) {
      for (const match of text.matchAll(mention)) {
        if (!exists(match[1] as string)) found.push({ path: file.path, line, what: `${match[1]} does not exist` });
      }
    }
  }
  return found;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const text of markdown.split('\n')) {
    if (/^\s*```/.test(text)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(text);
    if (heading) anchors.add(headingAnchor(heading[1] as string));
  }
  return anchors;
}

/** Relative links in Markdown files whose target, or the heading they point at, is not in the clone. */
export function findBrokenMarkdownLinks(files: RepoFile[], exists: Exists): Finding[] {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const found: Finding[] = [];
  for (const file of files.filter((f) => f.path.endsWith('.md'))) {
    for (const [line, text] of lines(file)) {
      for (const match of text.matchAll(MARKDOWN_LINK)) {
        const link = match[1] as string;
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:: not the clone's
        const [target = '', anchor] = link.split('#');
        const path = target === '' ? file.path : posix.normalize(posix.join(posix.dirname(file.path), target));
        if (path.startsWith('..') || !exists(path)) {
          found.push({ path: file.path, line, what: `${link}: ${path} is not in the repository` });
          continue;
        }
        const linked = byPath.get(path);
        if (anchor && linked && path.endsWith('.md') && !anchorsOf(linked.text).has(anchor)) {
          found.push({ path: file.path, line, what: `${link}: ${path} has no heading #${anchor}` });
        }
      }
    }
  }
  return found;
}

/**
 * Sections cited by name that the cited page does not have: `docs/architecture.md, 'Idempotent side
 * effects'` (the quoted name may follow on the next comment line) must name one of its headings.
 */
export function findUnknownSections(files: RepoFile[]): Finding[] {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const citation = /(docs\/[\w-]+\.md),\s*(?:(?:\/\/|\*)\s*)?(['"])([^'"\n]+)\2/g;
  const found: Finding[] = [];
  for (const file of files) {
    for (const match of file.text.matchAll(citation)) {
      const [, page = '', , section = ''] = match;
      const cited = byPath.get(page);
      if (cited && !anchorsOf(cited.text).has(headingAnchor(section))) {
        const line = file.text.slice(0, match.index).split('\n').length;
        found.push({ path: file.path, line, what: `${page} has no section "${section}"` });
      }
    }
  }
  return found;
}

/**
 * The documents docs/lifecycle-rules.md's "Sources" table maps to public addresses: each backticked
 * `*.txt` name in a row that also gives an https address.
 */
export function listedSources(lifecycleRules: string): Set<string> {
  const section = /^## Sources\n([\s\S]*?)(?=^## )/m.exec(lifecycleRules)?.[1] ?? '';
  const names = new Set<string>();
  for (const row of section.split('\n').filter((l) => l.startsWith('|') && l.includes('https://'))) {
    for (const match of row.matchAll(/`([\w-]+\.txt)`/g)) names.add(match[1] as string);
  }
  return names;
}

/** `*.txt` documents cited in code comments that are neither files of the clone nor listed in Sources. */
export function findUnlistedDocuments(files: RepoFile[], sources: Set<string>, trackedNames: Set<string>): Finding[] {
  const found: Finding[] = [];
  for (const file of files.filter((f) => CODE_FILE.test(f.path))) {
    for (const [line, text] of lines(file)) {
      if (!COMMENT_LINE.test(text)) continue;
      for (const match of text.matchAll(TXT_NAME)) {
        const name = match[0];
        if (!sources.has(name) && !trackedNames.has(name)) {
          found.push({ path: file.path, line, what: `${name} is not listed in docs/lifecycle-rules.md's Sources` });
        }
      }
    }
  }
  return found;
}
