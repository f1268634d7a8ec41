// `GET /events`: the revision watch's news as Server-Sent Events
// (https://html.spec.whatwg.org/multipage/server-sent-events.html), one `event: <kind>` with its
// JSON a message. The page reads it with fetch, not EventSource, so that it can send the session
// key as a header as on every other call (docs/dashboard.md, "Security").
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RevisionWatch } from './revision-watch.js';

export function serveEvents(req: IncomingMessage, res: ServerResponse, watch: RevisionWatch, headers: Record<string, string>): void {
  res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
  // A comment, so the page's fetch resolves before the first news.
  res.write(': drover dashboard events\n\n');
  const stop = watch.listen((news) => {
    res.write(`event: ${news.kind}\ndata: ${JSON.stringify(news)}\n\n`);
    // Nothing more will come: the page falls back to polling.
    if (news.kind === 'unsupported') res.end();
  });
  req.once('close', stop);
  res.once('close', stop);
}
