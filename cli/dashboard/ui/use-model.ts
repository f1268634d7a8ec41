// The model as the page knows it: status and stuck, read again every few seconds (less often in a
// background tab), with when they were last read and the last error. Polling is the first step;
// the status op is paged, so even a 100,000-unit model is read as `drover status` reads it.
import type { StatusDoc } from '#shared/domain/status-document.js';
import { useEffect, useState } from 'preact/hooks';
import { readStatus, readStuck, type StuckEntity } from './api.js';

/** Every 5 s in view; `#poll=<ms>` in the URL changes it (the browser tests poll faster). */
const requested = Number(new URLSearchParams(location.hash.slice(1)).get('poll'));
const INTERVAL_MS = Number.isFinite(requested) && requested >= 250 ? requested : 5_000;
const HIDDEN_INTERVAL_MS = 60_000;

export interface ModelState {
  doc?: StatusDoc;
  stuck: StuckEntity[];
  updated?: Date;
  error?: string;
}

/** `model`: the one the page chose (its `#model=`); none, the one `drover dashboard` was started on. */
export function useModel(model?: string): ModelState {
  const [state, setState] = useState<ModelState>({ stuck: [] });
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const tick = async () => {
      try {
        const [doc, stuck] = await Promise.all([readStatus(model), readStuck(model)]);
        if (!stopped) setState({ doc, stuck, updated: new Date() });
      } catch (e) {
        if (!stopped) setState((s) => ({ ...s, error: e instanceof Error ? e.message : String(e) }));
      }
      if (!stopped) timer = setTimeout(tick, document.hidden ? HIDDEN_INTERVAL_MS : INTERVAL_MS);
    };
    const wake = () => {
      if (document.hidden || stopped) return;
      clearTimeout(timer);
      void tick();
    };
    void tick();
    document.addEventListener('visibilitychange', wake);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', wake);
    };
  }, [model]);
  return state;
}
