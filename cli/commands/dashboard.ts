// dashboard: a web view of the current model, served on 127.0.0.1 by the CLI itself, reading
// through the CLI's own client so that no credential reaches the browser (docs/dashboard.md).
// Runs until Ctrl-C.
import { InvalidArgumentError, type Command } from 'commander';
import type { Cli } from '../context.js';

/** Juju's `juju dashboard` port. */
export const DEFAULT_DASHBOARD_PORT = 31666;

function port(value: string): number {
  if (!/^[0-9]+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('--port must be a port number (0: any free port)');
  return Number(value);
}

export function registerDashboard(program: Command, cli: Cli): void {
  program
    .command('dashboard')
    .description('Serve a live web view of the current model on 127.0.0.1, and open it in a browser.')
    .option('--port <n>', 'the local port to serve on (0: any free port)', port, DEFAULT_DASHBOARD_PORT)
    .option('--no-browser', 'print the URL without opening a browser')
    .addHelpText('after', '\nExamples:\n  drover dashboard\n  drover dashboard --port 8080 --no-browser\n  drover dashboard -m staging')
    .action(async (opts: { port: number; browser: boolean }) => {
      const { controller, model } = await cli.target();
      const client = await cli.client();
      // Loaded here, not with the CLI: the server and the page's build (esbuild) are this command's alone.
      const [{ dashboardAssets }, { openBrowser }, { startDashboardServer }] = await Promise.all([
        import('../dashboard/bundle.js'),
        import('../dashboard/open-browser.js'),
        import('../dashboard/server.js'),
      ]);
      const server = await startDashboardServer({
        client,
        assets: await dashboardAssets(),
        port: opts.port,
        title: `drover ${controller}:${model}`,
      });
      try {
        cli.io.stderr(`Dashboard for controller "${controller}", model "${model}", is running at:\n`);
        cli.io.stdout(`  ${server.url}\n`);
        cli.io.stderr('The link works once, for one browser (docs/dashboard.md, "Security").\n');
        if (opts.browser) {
          // A link of its own, spent at once by the browser: what a browser's argv shows (to every
          // local user, through /proc) no longer admits anyone (docs/dashboard.md, "Security").
          const failed = await openBrowser(server.oneTimeUrl(), cli.io.env);
          if (failed) cli.io.stderr(`could not open a browser (${failed}); open the URL above\n`);
        }
        cli.io.stderr('Press Ctrl-C to stop.\n');
        await new Promise<void>((resolve) => {
          if (cli.io.signal.aborted) return resolve();
          cli.io.signal.addEventListener('abort', () => resolve(), { once: true });
        });
      } finally {
        await server.close();
      }
    });
}
