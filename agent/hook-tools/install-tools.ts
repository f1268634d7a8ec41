// The tools directory at the front of every hook's PATH ("$PATH is prefixed by a directory
// containing command line tools through which the hooks can interact with juju"). Each tool is a
// copy of hook-tool.bash under the tool's name, which the script reads from $0 as Juju's jujuc
// reads its links' names; copies rather than links, so nothing depends on how the tools directory
// was made.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOOL_NAMES } from './commands/index.js';

/** `toolScript`: agent/hook-tools/hook-tool.bash, wherever this agent was installed. */
export function installHookTools(toolsDir: string, toolScript: string): void {
  const script = readFileSync(toolScript);
  mkdirSync(toolsDir, { recursive: true });
  for (const name of TOOL_NAMES) {
    const path = join(toolsDir, name);
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, script, { mode: 0o755 });
    renameSync(tmp, path);
  }
}
