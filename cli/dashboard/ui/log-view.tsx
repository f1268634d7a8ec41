// `drover debug-log` in the page: the last lines of the model's log, then each new one as it is
// logged, with debug-log's filters (--include, --exclude, --level; cli/debug-log-flags.ts). It
// reads as the CLI's tail does: each answer's cursor passed back as `after` (shared/api/requests.ts).
import { useEffect, useState } from 'preact/hooks';
import { read } from './api.js';
import { POLL_MS } from './use-model.js';
import { errorMessage } from '#shared/domain/errors.js';

const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARNING', 'ERROR'] as const;
/** Lines read first, as `debug-log -n`; and the most the pane keeps. */
const FIRST_LINES = 200;
const KEPT_LINES = 2_000;
/** How often new lines are asked for: a second, or the page's own interval if shorter (tests). */
const FOLLOW_MS = Math.min(POLL_MS, 1_000);

export interface LogFilters {
  include: string;
  exclude: string;
  level: string;
}

export const NO_LOG_FILTERS: LogFilters = { include: '', exclude: '', level: '' };

/** The filters as debug-log's query: only those given. */
function queryOf(filters: LogFilters): Record<string, string> {
  const query: Record<string, string> = {};
  if (filters.include.trim()) query.include = filters.include.trim();
  if (filters.exclude.trim()) query.exclude = filters.exclude.trim();
  if (filters.level) query.level = filters.level;
  return query;
}

/** `filters` are the page's, so that they stay while another view is shown. */
export function LogView({
  model,
  filters,
  setFilters,
}: {
  model: string | undefined;
  filters: LogFilters;
  setFilters: (filters: LogFilters) => void;
}) {
  const [draft, setDraft] = useState<LogFilters>(filters);
  const [lines, setLines] = useState<string[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [following, setFollowing] = useState(true);
  useEffect(() => {
    if (!following) return;
    let cursor: string | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    setLines([]);
    const next = async () => {
      try {
        const page = await read<{ lines: string[]; cursor: string }>(
          'debug-log',
          {
            ...queryOf(filters),
            limit: String(cursor === undefined ? FIRST_LINES : 10_000),
            ...(cursor !== undefined ? { after: cursor } : {}),
          },
          model,
        );
        if (stopped) return;
        cursor = page.cursor;
        setError(undefined);
        if (page.lines.length) setLines((shown) => [...shown, ...page.lines].slice(-KEPT_LINES));
      } catch (e) {
        if (!stopped) setError(errorMessage(e));
      }
      if (!stopped) timer = setTimeout(() => void next(), FOLLOW_MS);
    };
    void next();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [model, filters, following]);
  const apply = (ev: Event) => {
    ev.preventDefault();
    setFilters(draft);
  };
  return (
    <section class="log-view" aria-label="Log">
      <form class="log-filters" onSubmit={apply} aria-label="Log filters">
        <label>
          Include{' '}
          <input
            name="include"
            placeholder="mysql/0, machine-1"
            value={draft.include}
            onInput={(ev) => setDraft({ ...draft, include: ev.currentTarget.value })}
          />
        </label>
        <label>
          Exclude <input name="exclude" value={draft.exclude} onInput={(ev) => setDraft({ ...draft, exclude: ev.currentTarget.value })} />
        </label>
        <label>
          Level{' '}
          <select name="level" value={draft.level} onChange={(ev) => setDraft({ ...draft, level: ev.currentTarget.value })}>
            <option value="">any</option>
            {LEVELS.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary">
          Apply
        </button>
        <button type="button" aria-pressed={!following} onClick={() => setFollowing(!following)}>
          {following ? 'Pause' : 'Follow'}
        </button>
      </form>
      {error ? (
        <p class="problem refusal" role="alert">
          ✖ {error}
        </p>
      ) : null}
      <pre class="log-pane" aria-live="off" data-following={following}>
        {lines.join('\n') || 'No lines yet.'}
      </pre>
    </section>
  );
}
