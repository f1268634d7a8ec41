// The tools directory at the front of every hook's PATH ("$PATH is prefixed by a directory
// containing command line tools through which the hooks can interact with juju"). Each tool is a
// two-line shell wrapper that runs hook-tool.mjs with this agent's own node binary: on an EC2
// machine node is not on the default PATH, and a wrapper needs no symlink support.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOOL_NAMES } from './commands/index.js';

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export function installHookTools(toolsDir: string, nodePath: string, toolScript: string): void {
  mkdirSync(toolsDir, { recursive: true });
  for (const name of TOOL_NAMES) {
    const path = join(toolsDir, name);
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, `#!/bin/sh\nexec ${shellQuote(nodePath)} ${shellQuote(toolScript)} ${shellQuote(name)} "$@"\n`, { mode: 0o755 });
    renameSync(tmp, path);
  }
}
