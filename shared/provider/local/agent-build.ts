// The machine agent the local provider runs: the esbuild bundle EC2 instances get
// (shared/agent-bundle/esbuild-options.ts), built into `<dataDir>/agent/` when the controller
// starts, and run as `node <dataDir>/agent/machine-agent.js`.
//
// Why a bundle and not `node --import tsx agent/main.ts`: tsx compiles the agent's
// TypeScript in every agent process, ~0.3 CPU-seconds each against ~0.07 s to load the bundle
// (measured); a `deploy -n 100` on a 2-core host starts 100 agents at once.
//
// A build takes 0.15–0.4 s (measured), so it is skipped when nothing it read has changed, and
// its files are written so that an agent starting from this directory meanwhile (one revived
// beside a running controller) never reads half a file: shared/build-cache/cached-build.mjs, as
// the `drover` bin's bundle is cached.
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { cachedBuild } from '../../build-cache/cached-build.mjs';
import { AGENT_ENTRY, AGENT_PACKAGE_JSON, AGENT_SCRIPT, AGENT_SCRIPTS, agentEsbuildOptions } from '../../agent-bundle/esbuild-options.js';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

export const agentDirOf = (dataDir: string) => join(dataDir, 'agent');

/** Bundles the agent into `<dataDir>/agent/` unless it is there already; returns the command that runs it. */
export async function buildLocalAgent(dataDir: string, entry = join(REPO, AGENT_ENTRY)): Promise<string[]> {
  const dir = agentDirOf(dataDir);
  const options = {
    ...agentEsbuildOptions(entry, `node${process.versions.node.split('.')[0]}`),
    // Readable stack traces in agent.log; loading it costs no more than the minified file (measured).
    minify: false,
    metafile: true,
  };
  await cachedBuild({
    dir,
    key: JSON.stringify(options),
    build: async () => {
      const result = await build(options);
      const scripts = AGENT_SCRIPTS.map((relative) => ({ relative, path: join(dirname(entry), relative) }));
      return {
        files: [
          { path: 'package.json', contents: AGENT_PACKAGE_JSON },
          ...(await Promise.all(
            scripts.map(async ({ relative, path }) => ({ path: relative, contents: await readFile(path), mode: 0o755 })),
          )),
          // The agent last: an agent that finds it finds its scripts.
          { path: AGENT_SCRIPT, contents: result.outputFiles[0]!.contents },
        ],
        outputs: AGENT_SCRIPT,
        // Metafile paths are relative to esbuild's working directory.
        inputs: [...Object.keys(result.metafile?.inputs ?? {}).map((path) => resolve(path)), ...scripts.map((s) => s.path)],
      };
    },
  });
  return [process.execPath, join(dir, AGENT_SCRIPT)];
}
