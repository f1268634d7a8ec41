// The dashboard's page: one HTML shell, one script and its style sheet, bundled by esbuild in memory when the
// command starts (about half a second), so there is no build step to forget and no stale bundle:
// the page always matches the CLI that serves it (docs/dashboard.md, "The page").
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const UI = fileURLToPath(new URL('./ui/', import.meta.url));

export interface DashboardAssets {
  html(title: string): string;
  script: string;
  style: string;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

let built: Promise<{ script: string; style: string }> | undefined;

async function buildPage(): Promise<{ script: string; style: string }> {
  const result = await build({
    entryPoints: [`${UI}main.tsx`],
    bundle: true,
    write: false,
    // Nothing is written: the names only tell the script from the style sheet it imports.
    outdir: '/dashboard',
    entryNames: 'app',
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: `${UI}tsconfig.json`,
    logLevel: 'silent',
  });
  const output = (extension: string) => result.outputFiles.find((f) => f.path.endsWith(extension))?.text ?? '';
  return { script: output('.js'), style: output('.css') };
}

/** Built once per process: a second dashboard (a test's) reuses it. */
export async function dashboardAssets(): Promise<DashboardAssets> {
  const { script, style } = await (built ??= buildPage());
  return {
    script,
    style,
    html: (title) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/app.css">
</head>
<body>
<div id="app"><p>Loading…</p></div>
<script type="module" src="/app.js"></script>
</body>
</html>
`,
  };
}
