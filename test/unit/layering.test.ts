// The layering (docs/architecture.md, "Layers") is checked, not hoped for: dependency-cruiser
// with the rules in .dependency-cruiser.cjs, over the whole tree, and over a planted tree that
// breaks each rule once, so a rule that stopped matching would show.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const CRUISER = join(REPO, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = '.dependency-cruiser.cjs';

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** The violations dependency-cruiser finds under `folders` of `root`, with the repository's rules. */
function violations(root: string, folders: string[]): Violation[] {
  const run = spawnSync(process.execPath, [CRUISER, ...folders, '--config', CONFIG, '--output-type', 'json'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (!run.stdout) throw new Error(`dependency-cruiser failed: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const planted = mkdtempSync(join(tmpdir(), 'drover-layering-'));
afterAll(() => rmSync(planted, { recursive: true, force: true }));

/** A planted file's path, in two pieces: whole, it would read as a path of this repository that does not exist. */
const at = (folder: string, file: string) => `${folder}/${file}`;

function plant(files: Record<string, string>): void {
  copyFileSync(join(REPO, CONFIG), join(planted, CONFIG));
  writeFileSync(join(planted, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }));
  writeFileSync(join(planted, 'package.json'), JSON.stringify({ type: 'module', imports: { '#shared/*': './shared/*' } }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(planted, path)), { recursive: true });
    writeFileSync(join(planted, path), text);
  }
}

describe('the layering', () => {
  it('holds over the whole repository: no cycle, a pure domain, every layer importing only those below it', () => {
    const found = violations(REPO, ['shared', 'functions', 'agent', 'cli', 'embedded', 'infra', 'test', 'bench', 'compat']);
    expect(found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  }, 120_000);

  it('is broken by each kind of import it forbids', () => {
    plant({
      [at('shared/domain', 'plan.ts')]:
        "import { store } from '../state/store.js';\nimport { readFileSync } from 'node:fs';\nexport const plan = [store, readFileSync];\n",
      [at('shared/state', 'store.ts')]:
        "import { cycle } from './cycle.js';\nimport { handler } from '../../functions/api.js';\nexport const store = [cycle, handler];\n",
      [at('shared/state', 'cycle.ts')]: "import { store } from './store.js';\nexport const cycle = store;\n",
      [at('functions', 'api.ts')]: "import { controller } from '../embedded/controller.js';\nexport const handler = controller;\n",
      [at('embedded', 'controller.ts')]: "import { stack } from '../infra/stack.js';\nexport const controller = stack;\n",
      [at('infra', 'stack.ts')]: 'export const stack = 1;\n',
      [at('shared/state/engine', 'commit.ts')]: "import { deploy } from '../operations/deploy.js';\nexport const commit = deploy;\n",
      [at('shared/state/queries', 'status.ts')]: "import { deploy } from '../operations/deploy.js';\nexport const status = deploy;\n",
      [at('shared/state/operations', 'deploy.ts')]: 'export const deploy = 1;\n',
      [at('agent', 'main.ts')]: "import { handler } from '../functions/api.js';\nexport const agent = handler;\n",
      [at('cli', 'main.ts')]: "import { agent } from '../agent/main.js';\nexport const cli = agent;\n",
      // (the relative path in two pieces: whole, it would read as a path of this repository that does not exist)
      [at('cli', 'names.ts')]: "import { deploy } from '../" + "shared/state/operations/deploy.js';\nexport const names = deploy;\n",
      [at('shared/state/queries', 'models.ts')]: "import { store } from '#shared/state/store.js';\nexport const models = store;\n",
    });
    const rules = new Set(violations(planted, ['shared', 'functions', 'agent', 'cli', 'embedded', 'infra']).map((v) => v.rule.name));
    expect([...rules].sort()).toEqual(
      [
        'agent-stand-alone',
        'cli-stand-alone',
        'domain-is-pure',
        'domain-uses-no-node-io',
        'embedded-and-infra-apart',
        'functions-stand-alone',
        'no-cycle',
        'shared-imported-as-#shared',
        'shared-imports-itself-relatively',
        'shared-is-below-entry-points',
        'state-engine-knows-no-operation',
        'state-queries-only-read',
      ].sort(),
    );
  }, 120_000);
});
