// Opens a URL in the user's browser, as `juju dashboard --browser` does: $BROWSER if set, else the
// platform's opener. A failure is only reported: the URL is printed anyway.
import { spawn } from 'node:child_process';

function opener(env: Record<string, string | undefined>): [string, string[]] {
  if (env.BROWSER) return [env.BROWSER, []];
  if (process.platform === 'darwin') return ['open', []];
  if (process.platform === 'win32') return ['cmd', ['/c', 'start', '""']];
  return ['xdg-open', []];
}

/** Resolves to why it could not open one, or undefined once the opener started. */
export function openBrowser(url: string, env: Record<string, string | undefined>): Promise<string | undefined> {
  const [command, args] = opener(env);
  return new Promise((resolve) => {
    const child = spawn(command, [...args, url], { detached: true, stdio: 'ignore', env: env as NodeJS.ProcessEnv });
    child.once('error', (e) => resolve(`cannot run ${command}: ${e.message}`));
    child.once('spawn', () => {
      child.unref();
      resolve(undefined);
    });
  });
}
