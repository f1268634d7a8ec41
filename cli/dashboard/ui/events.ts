// The server's events (cli/dashboard/events.ts) as the page reads them: a fetch of `/events` (with
// the session's cookie, as every call; fetch, not EventSource, for the model's header), its body split into Server-Sent
// Events (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation:
// only the `event` and `data` fields, which is all the server sends).
import { modelHeaders } from './api.js';

export type ServerNews = { kind: 'revision'; revision: number } | { kind: 'unsupported' } | { kind: 'error'; message: string };

/**
 * Calls `onNews` for each event of `model` (none: the one the dashboard was started on) until the
 * stream ends (resolves) or fails (rejects); `signal` stops it.
 */
export async function followEvents(model: string | undefined, signal: AbortSignal, onNews: (news: ServerNews) => void): Promise<void> {
  const response = await fetch('/events', { headers: modelHeaders(model), signal });
  if (!response.ok || !response.body) throw new Error(`the dashboard's events answered HTTP ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice('data:'.length).trimStart())
        .join('\n');
      // Comments (`: …`) carry no data.
      if (data) onNews(JSON.parse(data) as ServerNews);
    }
  }
}
