// The CLI as the `drover` bin runs it: cli/main.ts bundled by esbuild into a cache, so a command
// costs Node's start-up and the loading of one file, not a TypeScript compile of the CLI (tsx took
// about 0.4 CPU-seconds a call; tools such as jubilant run `status` once a second). Built on the
// first run and again only when a file it was built from changed (shared/build-cache/cached-build.mjs).
//
// Where the cache lives: .drover-build/cli in the package's own directory, beside the code it was
// built from in every kind of install (a clone, `npx drover`, a global install), ignored by git and
// so never packed; its bare imports (esbuild, kept outside the bundle) resolve from the package's
// node_modules. Not node_modules/.cache: node_modules may be shared by several checkouts (a
// symlink to one install), and each would overwrite the others' bundle.
//
// Two CommonJS files: the entry (cli/main.ts: `--version`, and loading the rest), and the program
// (cli/program.ts, the commands and their libraries), which main.ts imports as './program.js'.
// The program is compiled through V8's code cache: the first run of each command writes the code
// it compiled beside the program, and its later runs skip parsing (about 15 ms of a `drover
// status`, measured); Node 20 has no code cache for ES modules, hence CommonJS. `drover
// --version` never loads the program. What only some commands use (the dashboard and its page build, bundles, starting a local controller,
// SigV4) is imported dynamically, and esbuild initialises such a module on its first import, so
// its code is neither compiled nor run unless such a command runs.
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cachedBuild, writeAtomically } from '#shared/build-cache/cached-build.mjs';

const PACKAGE = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(import.meta.url);

export const CLI_ENTRY = join(PACKAGE, 'cli', 'main.ts');
export const CLI_CACHE_DIR = join(PACKAGE, '.drover-build', 'cli');
/** How the entry's bundle names the program's: a require() the loader answers (loadBundles). */
const PROGRAM_ID = 'drover-cli-program';
/** The module the entry imports as './program.js', beside it. */
const programOf = (entry) => join(dirname(entry), 'program.ts');
/**
 * The program's code as a command compiled it, beside it: one cache per command (its first
 * argument), each holding what that command runs, since V8 compiles a function on first call.
 */
export const codeCacheOf = (bundle, argv) => `${bundle}.${/^[a-z][a-z0-9-]*$/.test(argv[0] ?? '') ? argv[0] : 'other'}.v8-cache`;

/** Files that decide how the bundle is built: a change to one builds it again. */
const BUILDER_FILES = [
  fileURLToPath(import.meta.url),
  fileURLToPath(new URL('../../shared/build-cache/cached-build.mjs', import.meta.url)),
];

/** The entry's import of './program.js' becomes a require() of PROGRAM_ID, bundled apart. */
const programApart = (entry) => ({
  name: 'program-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/program\.js$/ }, (args) =>
      args.importer === entry ? { path: PROGRAM_ID, external: true } : undefined,
    );
  },
});

/**
 * Each source's `import.meta.url` stays its own: code that finds files beside it (the dashboard's
 * page, the local controller's entry) works wherever the bundle is.
 */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
      const { readFile } = await import('node:fs/promises');
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return { contents: text, loader: 'ts' };
      return { contents: text.replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};

export const cliEsbuildOptions = (entry, outdir) => ({
  entryPoints: { 'drover-cli': entry, 'drover-program': programOf(entry) },
  outdir,
  // Named by its contents, so a code cache (named after it) always belongs to the code it was made
  // from, whichever process wrote it: V8 checks only a cache's length against the source.
  entryNames: '[name]-[hash]',
  outExtension: { '.js': '.cjs' },
  // Metafile paths are relative to it; the user's working directory may be anywhere, even gone.
  absWorkingDir: PACKAGE,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  // Every import() a require(): the entry's of the program, which the loader answers, and the
  // externals' (esbuild, Node's built-ins), which a CommonJS bundle can require.
  supported: { 'dynamic-import': false },
  target: `node${process.versions.node.split('.')[0]}`,
  mainFields: ['module', 'main'],
  // esbuild has a native binary: it is required from node_modules, only by the commands that build.
  external: ['esbuild'],
  // Whitespace and syntax only: names stay readable in a DROVER_DEBUG stack trace.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  // Non-ASCII characters escaped, so the loader reads the files as latin1, quicker than UTF-8.
  charset: 'ascii',
  plugins: [programApart(entry), sourceUrls],
  metafile: true,
  write: false,
  logLevel: 'silent',
});

/** Builds the CLI into `dir` unless it is there already; returns the paths of its two bundles. */
export async function ensureCliBundle({ entry = CLI_ENTRY, dir = CLI_CACHE_DIR } = {}) {
  const { outputs } = await cachedBuild({
    dir,
    key: JSON.stringify({ entry, node: process.versions.node.split('.')[0] }),
    build: async () => {
      const { build } = await import('esbuild');
      const result = await build(cliEsbuildOptions(entry, dir));
      const files = result.outputFiles.map((f) => ({ path: f.path.slice(dir.length + 1), contents: f.contents }));
      const named = (prefix) => files.find((f) => f.path.startsWith(prefix)).path;
      return {
        // The entry last: a process that finds it finds the program it names.
        files: files.sort((a, b) => a.path.startsWith('drover-cli-') - b.path.startsWith('drover-cli-')),
        outputs: { entry: named('drover-cli-'), program: named('drover-program-') },
        inputs: [
          ...Object.keys(result.metafile.inputs).map((input) => join(PACKAGE, input)),
          ...BUILDER_FILES,
          require.resolve('esbuild/package.json'),
        ],
      };
    },
  });
  return { entry: join(dir, outputs.entry), program: join(dir, outputs.program) };
}

/** Runs a CommonJS file as Node would, its require() answered by `requireOf(path)`; returns its exports. */
function runCommonJs(path, source, cachedData, requireOf) {
  const vm = require('node:vm');
  const script = new vm.Script(require('node:module').wrap(source), { filename: path, cachedData });
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, requireOf(path), module, path, dirname(path));
  return { exports: module.exports, script };
}

/**
 * Loads the entry's bundle, whose require() of PROGRAM_ID loads the program's through V8's code
 * cache. `saveCodeCache` writes the cache when there was none, or V8 refused it (another Node,
 * other flags), once the command has run and so compiled what it needed.
 */
function loadBundles({ entry, program }, argv) {
  const { readFileSync } = require('node:fs');
  let loaded;
  const loadProgram = () => {
    const cachePath = codeCacheOf(program, argv);
    let cachedData;
    try {
      cachedData = readFileSync(cachePath);
    } catch {
      // None yet.
    }
    const { exports, script } = runCommonJs(program, readFileSync(program, 'latin1'), cachedData, createRequire);
    loaded = { cachePath, cachedData, script };
    return exports;
  };
  const requireOf = (path) => {
    const requireHere = createRequire(path);
    return Object.assign((id) => (id === PROGRAM_ID ? loadProgram() : requireHere(id)), requireHere);
  };
  const { exports } = runCommonJs(entry, readFileSync(entry, 'latin1'), undefined, requireOf);
  return {
    ...exports,
    saveCodeCache: () => {
      if (!loaded || (loaded.cachedData && !loaded.script.cachedDataRejected)) return;
      try {
        writeAtomically(loaded.cachePath, loaded.script.createCachedData());
      } catch {
        // A read-only cache: the next run compiles again.
      }
    },
  };
}

/** Where the cache cannot be written (a read-only install), the sources run through tsx as they are. */
const unwritable = (e) => ['EACCES', 'EPERM', 'EROFS'].includes(e?.code);

/** The CLI's module (`main`, `run`, and `saveCodeCache` for after the run): the cached bundles, or its TypeScript through tsx. */
export async function loadCli(options = {}) {
  let bundles;
  try {
    bundles = await ensureCliBundle(options);
  } catch (e) {
    if (!unwritable(e)) throw e;
    const { register } = await import('tsx/esm/api');
    register();
    return { saveCodeCache: () => undefined, ...(await import(pathToFileURL(options.entry ?? CLI_ENTRY).href)) };
  }
  return loadBundles(bundles, options.argv ?? process.argv.slice(2));
}
