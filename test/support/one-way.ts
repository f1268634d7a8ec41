// One way of doing each thing: a hand-written copy of something a shared helper already does
// (reading a caught error's message, …) drifts from the helper and from the other copies.
// Each rule names the helper and the patterns of the copies it replaces.
//
// Pure functions over (path, text) pairs, so that a test can show each rule catching a copy as
// well as passing the repository as it is.
import type { Finding, RepoFile } from './repository-references.js';

export interface OneWayRule {
  /** The helper to use instead, and where it lives. */
  helper: string;
  /** The one file allowed to spell the thing out: the helper itself. */
  home: string;
  /** Where the rule holds, when not in every source folder. */
  within?: RegExp;
  patterns: RegExp[];
}

// Spelled in pieces so that this file, which the scan also reads, does not match itself.
export const ONE_WAY_RULES: OneWayRule[] = [
  {
    helper: 'errorMessage(e) / errorStack(e) from shared/domain/errors.ts',
    home: 'shared/domain/errors.ts',
    patterns: [
      // a cast to Error, then its message or stack
      new RegExp('\\bas ' + 'Error\\)\\??\\.(?:message|stack)\\b'),
      // a test for Error, then its message or stack, else the value as text
      new RegExp('instanceof ' + 'Error \\? \\(?[\\w.]+\\.(?:message|stack)\\b'),
    ],
  },
  {
    helper: 'waitFor from test/support/wait-for.ts',
    home: 'test/support/wait-for.ts',
    // a function of its own that polls until something holds
    patterns: [new RegExp('(?:function|const) (?:wait' + 'For|wait' + 'Until|even' + 'tually)\\b')],
  },
  {
    helper: 'silentLogger from test/support/silent-logger.ts',
    home: 'test/support/silent-logger.ts',
    // Product code keeps its own default (shared/provisioner/deps.ts, a log for a caller that gave none).
    within: /^(?:test|bench|compat)\//,
    // a logger of its own whose methods do nothing
    patterns: [new RegExp('\\b(?:error|warn|info|debug): \\(\\) => ' + 'undefined\\b')],
  },
];

const SOURCE_FILE = /\.(?:ts|tsx|mts|mjs|js)$/;
const SOURCE_FOLDER = /^(?:shared|functions|agent|cli|embedded|infra|test|bench|compat)\//;

/** Every line of a source file that spells out by hand what a rule's helper does. */
export function findHandWrittenCopies(files: RepoFile[], rules: OneWayRule[] = ONE_WAY_RULES): Finding[] {
  const found: Finding[] = [];
  for (const file of files) {
    if (!SOURCE_FILE.test(file.path) || !SOURCE_FOLDER.test(file.path)) continue;
    const lines = file.text.split('\n');
    for (const rule of rules) {
      if (file.path === rule.home || (rule.within && !rule.within.test(file.path))) continue;
      lines.forEach((text, i) => {
        if (rule.patterns.some((p) => p.test(text))) found.push({ path: file.path, line: i + 1, what: `use ${rule.helper}` });
      });
    }
  }
  return found;
}
