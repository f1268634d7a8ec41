// A fetch for the simulated agents' API requests, over at most `sockets` kept-alive connections
// shared by every agent. Real agents each hold their own connection on their own host; here
// thousands share one process's file descriptors (both ends: the API server is in this process
// too), and the global fetch opens one connection per request in flight. Requests beyond the
// bound wait for a free socket, as they would wait for the API's one event loop anyway.
import { Agent, request } from 'node:http';

export function boundedFetch(sockets: number): typeof fetch {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const body = typeof init.body === 'string' ? init.body : undefined;
    return new Promise<Response>((resolve, reject) => {
      const req = request(url, { method: init.method ?? 'GET', headers: init.headers as Record<string, string>, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
          const status = res.statusCode ?? 502;
          resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers }));
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }) as typeof fetch;
}
