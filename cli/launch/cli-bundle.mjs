// The CLI as the `drover` bin runs it: cli/main.ts bundled by esbuild into a cache, so a command
// costs Node's start-up and the loading of one file, not a TypeScript compile of the CLI (tsx took
// about 1 CPU-second a call; tools such as jubilant run `status` once a second). Built on the first
// run and again only when a file it was built from changed (shared/build-cache/cached-build.mjs).
//
// Where the cache lives: .drover-build/cli in the package's own directory, beside the code it was
// built from in every kind of install (a clone, `npx drover`, a global install), ignored by git and
// so never packed; its bare imports (esbuild, kept outside the bundle) resolve from the package's
// node_modules. Not node_modules/.cache: node_modules may be shared by several checkouts (a
// symlink to one install), and each would overwrite the others' bundle.
//
// Code that only some commands use (the dashboard and its page build, bundles, starting a local
// controller, SigV4) is imported dynamically, so esbuild puts it in chunks of its own that only
// those commands load (`splitting`).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cachedBuild } from '../../shared/build-cache/cached-build.mjs';

const PACKAGE = fileURLToPath(new URL('../..', import.meta.url));

export const CLI_ENTRY = join(PACKAGE, 'cli', 'main.ts');
export const CLI_CACHE_DIR = join(PACKAGE, '.drover-build', 'cli');
/** The bundle's entry file in the cache; its chunks are under chunks/. */
export const CLI_BUNDLE = 'drover-cli.js';

/** Files that decide how the bundle is built: a change to one builds it again. */
const BUILDER_FILES = [
  fileURLToPath(import.meta.url),
  fileURLToPath(new URL('../../shared/build-cache/cached-build.mjs', import.meta.url)),
];

/**
 * Each source's `import.meta.url` stays its own: code that finds files beside it (the dashboard's
 * page, the local controller's entry) works wherever the bundle is.
 */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return { contents: text, loader: 'ts' };
      return { contents: text.replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};

export const cliEsbuildOptions = (entry, outdir) => ({
  entryPoints: { [CLI_BUNDLE.replace(/\.js$/, '')]: entry },
  outdir,
  // Metafile paths are relative to it; the user's working directory may be anywhere, even gone.
  absWorkingDir: PACKAGE,
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: `node${process.versions.node.split('.')[0]}`,
  mainFields: ['module', 'main'],
  // esbuild has a native binary: it is imported from node_modules, only by the commands that build.
  external: ['esbuild'],
  // Some bundled CommonJS dependencies call require() for Node's built-ins.
  banner: {
    js: "import { createRequire as __droverCreateRequire } from 'node:module'; const require = __droverCreateRequire(import.meta.url);",
  },
  // Whitespace and syntax only: names stay readable in a DROVER_DEBUG stack trace.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  plugins: [sourceUrls],
  metafile: true,
  write: false,
  logLevel: 'silent',
});

/** Builds the CLI into `dir` unless it is there already; returns the bundle's entry file. */
export async function ensureCliBundle({ entry = CLI_ENTRY, dir = CLI_CACHE_DIR } = {}) {
  await cachedBuild({
    dir,
    key: JSON.stringify({ entry, node: process.versions.node.split('.')[0] }),
    build: async () => {
      const { build } = await import('esbuild');
      const result = await build(cliEsbuildOptions(entry, dir));
      const esbuildVersion = createRequire(import.meta.url).resolve('esbuild/package.json');
      return {
        files: [
          { path: 'package.json', contents: JSON.stringify({ type: 'module', private: true }) + '\n' },
          // The entry last: it names the chunks, which are then all there.
          ...result.outputFiles
            .map((f) => ({ path: f.path.slice(dir.length + 1), contents: f.contents }))
            .sort((a, b) => (a.path === CLI_BUNDLE) - (b.path === CLI_BUNDLE)),
        ],
        inputs: [...Object.keys(result.metafile.inputs).map((path) => join(PACKAGE, path)), ...BUILDER_FILES, esbuildVersion],
      };
    },
  });
  return join(dir, CLI_BUNDLE);
}

/** Where the cache cannot be written (a read-only install), the sources run through tsx as they are. */
const unwritable = (e) => ['EACCES', 'EPERM', 'EROFS'].includes(e?.code);

/** The CLI's module: the cached bundle, or its TypeScript through tsx where there can be no cache. */
export async function loadCli(options = {}) {
  let bundle;
  try {
    bundle = await ensureCliBundle(options);
  } catch (e) {
    if (!unwritable(e)) throw e;
    const { register } = await import('tsx/esm/api');
    register();
    return import(pathToFileURL(options.entry ?? CLI_ENTRY).href);
  }
  return import(pathToFileURL(bundle).href);
}
