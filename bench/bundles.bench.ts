// How big each Lambda function's bundle (and the machine agent's) is, built as the stack builds it (infra/functions.ts:
// esbuild, ESM, node22, minified, the pinned AWS SDK bundled too), and how much of it is zod.
// Side by side in one run: the sources as they are (`import * as z from 'zod'`, which lets
// esbuild keep only the parts used, English messages included) and the same sources importing
// zod's `z` object (`import { z } from 'zod'`), which carries every one of zod's locales.
// Run: npm run bench:bundles
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { FUNCTION_SPECS, REPO_ROOT, type FunctionKey } from '../infra/functions.js';
import { AGENT_ENTRY, agentEsbuildOptions } from '#shared/agent-bundle/esbuild-options.js';
import { writeSection } from './support/results-file.js';

/** Rewrites the project's zod imports to the named `z` object, as they were. */
const zodObjectImports: Plugin = {
  name: 'zod-object-imports',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes('node_modules')) return undefined;
      const text = readFileSync(args.path, 'utf8').replace(/^import \* as z from 'zod';$/m, "import { z } from 'zod';");
      return { contents: text, loader: 'ts' };
    });
  },
};

interface Sizes {
  total: number;
  zod: number;
  locales: number;
}

/** Built as infra/functions.ts builds a function, or (agent) as the agent bundle is built. */
async function bundle(entry: string, plugins: Plugin[], agent = false): Promise<Sizes> {
  const options: BuildOptions = agent
    ? agentEsbuildOptions(join(REPO_ROOT, entry), 'node22')
    : {
        entryPoints: [join(REPO_ROOT, entry)],
        bundle: true,
        write: false,
        platform: 'node',
        format: 'esm',
        target: 'node22',
        mainFields: ['module', 'main'],
        minify: true,
      };
  const result = await build({ ...options, metafile: true, logLevel: 'silent', plugins });
  const output = Object.values((result.metafile as Metafile).outputs)[0]!;
  const sizes: Sizes = { total: output.bytes, zod: 0, locales: 0 };
  for (const [path, input] of Object.entries(output.inputs)) {
    if (path.includes('node_modules/zod/')) sizes.zod += input.bytesInOutput;
    if (path.includes('node_modules/zod/v4/locales/')) sizes.locales += input.bytesInOutput;
  }
  return sizes;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
const rows: string[] = [];
const entries = new Map<string, FunctionKey[]>();
for (const [key, spec] of Object.entries(FUNCTION_SPECS) as [FunctionKey, (typeof FUNCTION_SPECS)[FunctionKey]][])
  entries.set(spec.entry, [...(entries.get(spec.entry) ?? []), key]);
for (const [entry, keys] of [...entries, [AGENT_ENTRY, ['machine agent (its SDK included)']] as const]) {
  const agent = entry === AGENT_ENTRY;
  const now = await bundle(entry, [], agent);
  const before = await bundle(entry, [zodObjectImports], agent);
  rows.push(
    `| ${keys.join(', ')} | ${kib(before.total)} (zod ${kib(before.zod)}, locales ${kib(before.locales)}) | ${kib(now.total)} (zod ${kib(now.zod)}, locales ${kib(now.locales)}) | ${(now.total / before.total).toFixed(2)} |`,
  );
  console.log(rows.at(-1));
}

const body = `
\`npm run bench:bundles\`: each Lambda entry bundled as infra/functions.ts bundles it (the AWS SDK
included, as every function carries the version the tests ran), in one run
with zod imported as its \`z\` object (every locale) and as a namespace (\`import * as z\`, what the
sources do: esbuild keeps the parts used and the English messages).

| functions | \`import { z }\` | \`import * as z\` (now) | ratio |
| --- | --- | --- | --- |
${rows.join('\n')}
`;
await writeSection(join(REPO_ROOT, 'bench', 'RESULTS.md'), '## Bundle sizes', body);
