// How the machine agent is bundled: one ESM file holding the agent and everything it imports (the
// AWS SDK included, since an EC2 instance has none), with the scripts the agent installs as hook
// tools shipped beside it. Shared by the EC2 bundle (infra/agent-bundle.ts)
// and the local provider's (shared/provider/local/agent-build.ts), so both run the same code.
import type { BuildOptions } from 'esbuild';

/** The agent's entry module, relative to the repository root. */
export const AGENT_ENTRY = 'agent/main.ts';

/**
 * Scripts the agent reads at run time, shipped beside machine-agent.js at the same path relative
 * to it as in agent/ (the hook tools are copies of `hook-tools/hook-tool.bash`).
 */
export const AGENT_SCRIPTS = ['hook-tools/hook-tool.bash'];

/** The bundled agent's file name, and the package.json that makes Node load it as ESM. */
export const AGENT_SCRIPT = 'machine-agent.js';
export const AGENT_PACKAGE_JSON = JSON.stringify({ type: 'module', private: true }) + '\n';

/** `target` is the Node.js that runs it: `node22` on EC2 instances, this host's locally. */
export const agentEsbuildOptions = (entry: string, target: string) =>
  ({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target,
    mainFields: ['module', 'main'],
    // Some bundled CommonJS dependencies call require() for Node's built-ins.
    banner: {
      js: "import { createRequire as __droverCreateRequire } from 'node:module'; const require = __droverCreateRequire(import.meta.url);",
    },
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'warning',
  }) satisfies BuildOptions;
