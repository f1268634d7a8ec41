// The unit agent's end of the hook tools: a unix socket (JUJU_AGENT_SOCKET) taking one JSON
// request per connection, `{contextId, command, args, cwd, stdin?}`, and answering
// `{code, stdout, stderr}`. A request names a hook context by its id; only the hook running now
// has one registered, so a tool run outside a hook (or after it) is refused.
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTool } from './commands/index.js';
import type { ToolContext, ToolResult } from './tool-context.js';

const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
/** sockaddr_un holds 108 bytes on Linux (104 on macOS). */
const MAX_SOCKET_PATH = 100;

interface ToolRequest {
  contextId: string;
  command: string;
  args: string[];
  cwd: string;
  stdin?: string;
}

/** The socket path for a unit directory; deep directories get a short one in the temp dir. */
export function socketPathFor(unitDir: string): string {
  const path = join(unitDir, 'agent.sock');
  if (Buffer.byteLength(path) <= MAX_SOCKET_PATH) return path;
  return join(tmpdir(), `drover-${createHash('sha256').update(unitDir).digest('hex').slice(0, 16)}.sock`);
}

function isRequest(v: unknown): v is ToolRequest {
  const r = v as ToolRequest;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.contextId === 'string' &&
    typeof r.command === 'string' &&
    Array.isArray(r.args) &&
    r.args.every((a) => typeof a === 'string') &&
    typeof r.cwd === 'string' &&
    (r.stdin === undefined || typeof r.stdin === 'string')
  );
}

export class ToolServer {
  private readonly contexts = new Map<string, ToolContext>();
  private server?: Server;

  constructor(readonly path: string) {}

  async start(): Promise<void> {
    rmSync(this.path, { force: true }); // left by an agent that was killed
    // Half-open: the tool ends its side once it has sent the request; the answer comes later.
    const server = createServer({ allowHalfOpen: true }, (socket) => this.serve(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.path, () => resolve());
    });
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(this.path, { force: true });
  }

  register(id: string, ctx: ToolContext): void {
    this.contexts.set(id, ctx);
  }

  unregister(id: string): void {
    this.contexts.delete(id);
  }

  private serve(socket: Socket): void {
    const chunks: Buffer[] = [];
    let size = 0;
    socket.on('error', () => undefined); // the tool went away; nothing to answer
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        socket.destroy();
        return;
      }
      chunks.push(chunk);
      if (chunk.includes(10)) void this.answer(socket, Buffer.concat(chunks));
    });
  }

  private async answer(socket: Socket, data: Buffer): Promise<void> {
    let result: ToolResult;
    let request: unknown;
    try {
      request = JSON.parse(data.subarray(0, data.indexOf(10)).toString('utf8'));
    } catch {
      request = undefined;
    }
    if (!isRequest(request)) result = { code: 1, stdout: '', stderr: 'ERROR bad request\n' };
    else {
      const ctx = this.contexts.get(request.contextId);
      result = ctx
        ? await runTool(ctx, request.command, request.args, {
            cwd: request.cwd,
            ...(request.stdin !== undefined ? { stdin: request.stdin } : {}),
          })
        : { code: 1, stdout: '', stderr: `ERROR bad request: unknown context id "${request.contextId}"\n` };
    }
    socket.end(JSON.stringify(result));
  }
}
