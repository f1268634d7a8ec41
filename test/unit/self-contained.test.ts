// The repository explains itself: no tracked file cites anything a clone does not contain
// (docs/architecture.md, docs/lifecycle-rules.md's Sources, or a public URL instead). Each rule is
// shown catching a bad reference first, then passing every git-tracked text file.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  anchorsOf,
  findBrokenMarkdownLinks,
  findBrokenParentPaths,
  findMissingPathMentions,
  findOutsideNotes,
  findUnknownSections,
  findUnlistedDocuments,
  headingAnchor,
  listedSources,
  type RepoFile,
} from '../support/repository-references.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const exists = (path: string) => existsSync(join(ROOT, path));

const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
// Text files only: a NUL byte marks a binary one. A tracked file deleted in the work tree is skipped.
const files: RepoFile[] = tracked
  .filter(exists)
  .map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }))
  .filter((f) => !f.text.includes('\0'));
const topFolders = [...new Set(tracked.filter((p) => p.includes('/')).map((p) => p.split('/')[0] as string))];
const trackedNames = new Set(tracked.map((p) => p.split('/').at(-1) as string));
const lifecycleRules = readFileSync(join(ROOT, 'docs/lifecycle-rules.md'), 'utf8');

// Bad references, spelled in pieces so that this file does not contain them.
const notes = 'DESI' + 'GN.md';
const parent = '../' + 'shared';
const fakeExists = (path: string) => ['docs/agents.md', 'shared/domain/plan.ts', 'README.md'].includes(path);

describe('a repository that explains itself', () => {
  it('finds the text files to check', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.map((f) => f.path)).toContain('docs/architecture.md');
  });

  describe('cites nothing kept outside the repository', () => {
    it('catches the design notes, the behaviour reference and the folder of documents', () => {
      const found = findOutsideNotes([
        { path: 'a.ts', text: `// see ${notes}, "State is the truth"` },
        { path: 'b.ts', text: 'x;\n// ' + 'DESI' + 'GN "Agents are least-privileged"' },
        { path: 'c.md', text: 'as in reference' + ' §' + '4.5' },
        { path: 'd.md', text: `(${parent}/reference/juju-` + 'behaviour.md)' },
        { path: 'e.ts', text: `// ${parent}/seeds` + '/lifecycles.txt' },
        { path: 'f.ts', text: '// docs/architecture.md, "One transaction per change"' },
        { path: 'g.ts', text: '/** EBS root volume, rounded up (' + '§' + '2.3 step 6). */' },
      ]);
      expect(found.map((f) => `${f.path}:${f.line}`)).toEqual(['a.ts:1', 'b.ts:2', 'c.md:1', 'd.md:1', 'e.ts:1', 'g.ts:1']);
    });

    it('in every tracked file', () => {
      expect(findOutsideNotes(files)).toEqual([]);
    });
  });

  describe('every parent-relative path into shared/ is in the clone', () => {
    it('catches a path that names nothing, or leaves the repository', () => {
      const found = findBrokenParentPaths(
        [
          { path: 'docs/agents.md', text: `Specification: \`${parent}/seeds` + '/charms-in-action.txt`' },
          { path: 'README.md', text: `the folder ${parent}/notes` },
          { path: 'agent/view.ts', text: `import type { Plan } from '${parent}/domain/plan.js';` },
        ],
        fakeExists,
      );
      expect(found.map((f) => f.path)).toEqual(['docs/agents.md', 'README.md']);
    });

    it('in every tracked file', () => {
      expect(findBrokenParentPaths(files, exists)).toEqual([]);
    });
  });

  describe('every path mentioned is in the clone', () => {
    it('catches a docs/ page or a source file that does not exist, but not a path inside a URL', () => {
      const found = findMissingPathMentions(
        [
          { path: 'a.ts', text: '// docs/' + 'design.md and docs/agents.md' },
          { path: 'b.md', text: 'see shared/domain/' + 'plans.ts; https://github.com/juju/juju/blob/2.9/shared/x.go' },
        ],
        ['docs', 'shared'],
        fakeExists,
      );
      expect(found.map((f) => f.what)).toEqual(['docs/' + 'design.md does not exist', 'shared/domain/' + 'plans.ts does not exist']);
    });

    it('in every tracked file', () => {
      expect(findMissingPathMentions(files, topFolders, exists)).toEqual([]);
    });
  });

  describe('every relative Markdown link resolves', () => {
    it('catches a missing page, a link out of the repository and a missing heading', () => {
      const agents = { path: 'docs/agents.md', text: '# Agents\n\n## Presence\n\n```\n# not a heading\n```\n' };
      const found = findBrokenMarkdownLinks(
        [
          agents,
          {
            path: 'README.md',
            text: [
              '[ok](docs/agents.md#presence) [web](https://juju.is) [missing](docs/' + 'nowhere.md)',
              `[out](../notes.md) [no heading](docs/agents.md#not-a-heading) [own](#top)`,
            ].join('\n'),
          },
        ],
        fakeExists,
      );
      expect(found.map((f) => f.what)).toEqual([
        'docs/' + 'nowhere.md: docs/' + 'nowhere.md is not in the repository',
        '../notes.md: ../notes.md is not in the repository',
        'docs/agents.md#not-a-heading: docs/agents.md has no heading #not-a-heading',
        '#top: README.md has no heading #top',
      ]);
    });

    it('names headings as GitHub anchors them', () => {
      expect([...anchorsOf('# Architecture\n## State is the truth; messages are hints\n## One code path, two homes\n')]).toEqual([
        'architecture',
        'state-is-the-truth-messages-are-hints',
        'one-code-path-two-homes',
      ]);
    });

    it('in every tracked Markdown file', () => {
      expect(findBrokenMarkdownLinks(files, exists)).toEqual([]);
    });
  });

  describe('every section a comment cites by name is a heading of the cited page', () => {
    it('catches a section the page does not have, also when the name is on the next comment line', () => {
      const page = { path: 'docs/architecture.md', text: '# Architecture\n\n## Idempotent side effects\n' };
      const cite = (section: string) => ['docs/architecture.md', section].join(', ');
      const found = findUnknownSections([
        page,
        { path: 'a.ts', text: `// ${cite("'Idempotent side effects'")}\n// ${cite('"Messages are the truth"')}` },
        { path: 'b.ts', text: ['/**', ` * (${cite('')}`, " * 'Agents are all-powerful')", ' */'].join('\n') },
      ]);
      expect(found.map((f) => `${f.path}:${f.line} ${f.what}`)).toEqual([
        'a.ts:2 docs/architecture.md has no section "Messages are the truth"',
        'b.ts:2 docs/architecture.md has no section "Agents are all-powerful"',
      ]);
    });

    it('in every tracked file', () => {
      expect(findUnknownSections(files)).toEqual([]);
    });

    it("and in docs/lifecycle-rules.md's rows from drover's own design (A)", () => {
      const architecture = anchorsOf(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));
      const cited = [...lifecycleRules.matchAll(/^\| A: "([^"]+)"/gm)].map((m) => m[1] as string);
      expect(cited.length).toBeGreaterThan(0);
      expect(cited.filter((section) => !architecture.has(headingAnchor(section)))).toEqual([]);
    });
  });

  describe("every Juju document a comment names is in docs/lifecycle-rules.md's Sources", () => {
    it('reads the Sources table: names with a public address', () => {
      const sources = listedSources(lifecycleRules);
      for (const name of ['lifecycles.txt', 'death-and-destruction.txt', 'charms-in-action.txt', 'what-we-run-and-why.txt']) {
        expect(sources).toContain(name);
      }
      expect(sources).toContain('required-relations-proposal.txt');
    });

    it('catches a document cited in a comment but not listed, and ignores strings and files of the clone', () => {
      const found = findUnlistedDocuments(
        [
          { path: 'a.ts', text: '// lifecycles.txt: "All such things start existence Alive."\n// glossary.txt: "a charm"' },
          { path: 'b.ts', text: "const f = 'out.txt';\n/** notes.txt, a file of the clone */" },
          { path: 'c.md', text: 'glossary.txt' },
        ],
        new Set(['lifecycles.txt']),
        new Set(['notes.txt']),
      );
      expect(found).toEqual([{ path: 'a.ts', line: 2, what: "glossary.txt is not listed in docs/lifecycle-rules.md's Sources" }]);
    });

    it('in every tracked source file', () => {
      expect(findUnlistedDocuments(files, listedSources(lifecycleRules), trackedNames)).toEqual([]);
    });
  });
});
