// The tasks of an action run from the page, followed as `drover show-task` shows them until each
// has ended: its status, message and results.
import { useEffect, useState } from 'preact/hooks';
import { read } from './api.js';
import { POLL_MS } from './use-model.js';
import { errorMessage } from '#shared/domain/errors.js';

export interface Queued {
  operation: string;
  tasks: { id: string; unit: string }[];
}

interface Task {
  id: string;
  unit: string;
  status: string;
  message?: string;
  results?: Record<string, unknown>;
}

const ENDED = new Set(['completed', 'failed', 'cancelled', 'aborted']);
/** How often a running task is read again: a second, or the page's own interval if shorter (tests). */
const TASK_POLL_MS = Math.min(POLL_MS, 1_000);

function OneTask({ id, unit, model }: { id: string; unit: string; model: string | undefined }) {
  const [task, setTask] = useState<Task | string>('pending');
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const poll = () =>
      read<Task>('show-task', { id }, model).then(
        (t) => {
          if (stopped) return;
          setTask(t);
          if (!ENDED.has(t.status)) timer = setTimeout(poll, TASK_POLL_MS);
        },
        (e: unknown) => !stopped && setTask(errorMessage(e)),
      );
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id, model]);
  if (typeof task === 'string') return <li data-task={id}>{`Task ${id} on ${unit}: ${task}`}</li>;
  return (
    <li data-task={id} data-status={task.status}>
      Task {id} on {unit}: <strong>{task.status}</strong> {task.message ?? ''}
      {task.results && ENDED.has(task.status) ? <pre class="results">{JSON.stringify(task.results, null, 2)}</pre> : null}
    </li>
  );
}

export function TaskResult({ queued, model }: { queued: Queued; model: string | undefined }) {
  return (
    <ul class="tasks" aria-label={`Operation ${queued.operation}`}>
      {queued.tasks.map((t) => (
        <OneTask key={t.id} id={t.id} unit={t.unit} model={model} />
      ))}
    </ul>
  );
}
