// Waiting for tasks, as `juju run` and `juju exec` do unless --background: poll each task until
// it has finished, printing its action-log messages as they arrive (on stderr, as Juju's log
// message handler does), up to --wait.
import { escapeControlCharacters } from './terminal-text.js';
import type { Task } from '#shared/domain/operations.js';
import { FINISHED } from '#shared/domain/operations.js';
import type { ApiClient } from './client.js';
import type { Cli } from './context.js';
import { CliError } from './errors.js';
import { sleep } from './output.js';
import { goTime } from './task-output.js';

const POLL_MS = 500;

/** Tasks as queued: their ids and units. */
export interface QueuedTask {
  id: string;
  unit: string;
}

export async function waitForTasks(cli: Cli, client: ApiClient, queued: QueuedTask[], waitMs: number | undefined): Promise<Task[]> {
  const ids = queued.map((t) => t.id);
  const deadline = waitMs === undefined ? Infinity : Date.now() + waitMs;
  const finished = new Map<string, Task>();
  const logged = new Map<string, number>();
  for (;;) {
    for (const id of ids) {
      if (finished.has(id)) continue;
      const task = await client.get<Task>('show-task', { id });
      const seen = logged.get(id) ?? 0;
      for (const entry of task.log.slice(seen)) cli.io.stderr(`${goTime(entry.timestamp)} ${escapeControlCharacters(entry.message)}\n`);
      logged.set(id, task.log.length);
      if (FINISHED.includes(task.status)) finished.set(id, task);
    }
    if (finished.size === ids.length) return ids.map((id) => finished.get(id)!);
    if (Date.now() >= deadline) {
      // Juju's words: the receivers still running, by their readable names.
      const pending = queued.filter((t) => !finished.has(t.id)).map((t) => `unit ${t.unit}`);
      throw new CliError(`timed out waiting for results from: ${pending.sort().join(', ')}`);
    }
    if (await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())), cli.io.signal)) throw new CliError('interrupted');
  }
}
