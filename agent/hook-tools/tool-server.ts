// The unit agent's end of the hook tools: a unix socket (JUJU_AGENT_SOCKET) taking one JSON
// request per connection, `{contextId, secret, command, args, cwd, stdin?, fileContent?}`, and
// answering `{code, stdout, stderr, file?}`. A request names a hook context by its id and proves
// it belongs to it with the context's secret: 32 random bytes drawn when the hook starts, given
// to it (and to nothing else) in DROVER_HOOK_SECRET, and forgotten when it ends. A context id is
// no proof: it is in the hook's environment under Juju's name for everyone to read, and in logs.
// So a process left behind by a hook that has ended, or by another unit's hook, is refused: it
// does not know the running hook's secret. (A process of the same user that reads the running
// hook's /proc/<pid>/environ can learn it; docs/agents.md, "What a hook can reach".)
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
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
  secret: string;
  command: string;
  args: string[];
  cwd: string;
  stdin?: string;
  fileContent?: string;
}

interface Registered {
  secret: Buffer;
  ctx: ToolContext;
}

const SECRET_BYTES = 32;

function sameSecret(given: string, expected: Buffer): boolean {
  const bytes = Buffer.from(given, 'base64url');
  return bytes.length === expected.length && timingSafeEqual(bytes, expected);
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
    typeof r.secret === 'string' &&
    typeof r.command === 'string' &&
    Array.isArray(r.args) &&
    r.args.every((a) => typeof a === 'string') &&
    typeof r.cwd === 'string' &&
    (r.stdin === undefined || typeof r.stdin === 'string') &&
    (r.fileContent === undefined || typeof r.fileContent === 'string')
  );
}

export class ToolServer {
  private readonly contexts = new Map<string, Registered>();
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

  /** Opens the context for its hook's tools; returns the secret they must present (DROVER_HOOK_SECRET). */
  register(id: string, ctx: ToolContext): string {
    const secret = randomBytes(SECRET_BYTES);
    this.contexts.set(id, { secret, ctx });
    return secret.toString('base64url');
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
      const registered = this.contexts.get(request.contextId);
      if (!registered) result = { code: 1, stdout: '', stderr: `ERROR bad request: unknown context id "${request.contextId}"\n` };
      else if (!sameSecret(request.secret, registered.secret))
        result = { code: 1, stdout: '', stderr: `ERROR bad request: wrong secret for context id "${request.contextId}"\n` };
      else
        result = await runTool(registered.ctx, request.command, request.args, {
          cwd: request.cwd,
          ...(request.stdin !== undefined ? { stdin: request.stdin } : {}),
          ...(request.fileContent !== undefined ? { fileContent: request.fileContent } : {}),
        });
    }
    socket.end(JSON.stringify(result));
  }
}
