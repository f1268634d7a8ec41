// The unit agent's end of the hook tools: a TCP server on 127.0.0.1, on a port of its own per
// unit (JUJU_AGENT_SOCKET_NETWORK=tcp, JUJU_AGENT_SOCKET_ADDRESS=127.0.0.1:<port>, as Juju gives
// hooks when its jujuc socket is TCP), taking one request per connection in the frame of
// tool-frame.ts. TCP because bash, which the tools are written in so that they start in a
// millisecond, can open a TCP connection (/dev/tcp) but not a unix socket.
//
// It listens only while a hook (or action) runs: opened with the hook's context, closed with its
// last one. An idle unit holds no port and no file descriptor (a machine of many units, or the
// agent simulator's thousands, would otherwise hold one each for nothing), and nothing is there
// to connect to between hooks. Listening costs a fraction of a millisecond per hook.
//
// A request names a hook context by its id and proves it belongs to it with the context's secret:
// 32 random bytes drawn when the hook starts, given to it (and to nothing else) in
// DROVER_HOOK_SECRET, and forgotten when it ends. A context id is no proof: it is in the hook's
// environment under Juju's name for everyone to read, and in logs. Any local user can connect to
// a TCP port, so the secret is all that keeps out a process left behind by a hook that has ended,
// another unit's hook, or another user's process; docs/agents.md, "What a hook can reach".
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { systemClock, type Clock } from '../clock.js';
import { runTool } from './commands/index.js';
import type { ToolContext, ToolResult } from './tool-context.js';
import { encodeAnswer, FrameError, RequestReader, type ToolRequest } from './tool-frame.js';

const SECRET_BYTES = 32;
const HOST = '127.0.0.1';
/**
 * How long a request may take to arrive, and an answered connection to close. A tool writes its
 * whole request at once, so this bounds only a connection that will never send one.
 */
export const REQUEST_DEADLINE_MS = 10_000;

interface Registered {
  secret: Buffer;
  ctx: ToolContext;
}

/** A request refused before any tool runs, as Juju's jujuc server refuses one and its client prints it (`error: bad request: ...`). */
const refusal = (message: string): ToolResult => ({ code: 1, stdout: '', stderr: `error: bad request: ${message}\n` });

function sameSecret(given: string, expected: Buffer): boolean {
  const bytes = Buffer.from(given, 'base64url');
  return bytes.length === expected.length && timingSafeEqual(bytes, expected);
}

export class ToolServer {
  private readonly contexts = new Map<string, Registered>();
  private server?: Server;
  private port?: number;

  constructor(private readonly options: { deadlineMs?: number; clock?: Clock } = {}) {}

  /** Opening and closing the listener, one after another. */
  private transition: Promise<void> = Promise.resolve();

  /** `127.0.0.1:<port>`, the hooks' JUJU_AGENT_SOCKET_ADDRESS, while a context is open. */
  get address(): string {
    if (this.port === undefined) throw new Error('the tool server is not listening: no hook context is open');
    return `${HOST}:${this.port}`;
  }

  /**
   * Opens the context for its hook's tools, listening if no other context is open. Returns the
   * secret they must present (DROVER_HOOK_SECRET) and where (JUJU_AGENT_SOCKET_ADDRESS).
   */
  async open(id: string, ctx: ToolContext): Promise<{ secret: string; address: string }> {
    const secret = randomBytes(SECRET_BYTES);
    this.contexts.set(id, { secret, ctx });
    await this.settle();
    return { secret: secret.toString('base64url'), address: this.address };
  }

  /** Closes the context (its tools are refused from now on), and the listener with the last one. */
  async close(id: string): Promise<void> {
    this.contexts.delete(id);
    await this.settle();
  }

  /** Stops listening whatever is open: the agent is stopping. */
  async stop(): Promise<void> {
    this.contexts.clear();
    await this.settle();
  }

  /** Listening exactly while a context is open, once the transitions before this one are done. */
  private settle(): Promise<void> {
    this.transition = this.transition.then(async () => {
      if (this.contexts.size > 0 && !this.server) await this.listen();
      if (this.contexts.size === 0 && this.server) this.unlisten();
    });
    return this.transition;
  }

  private async listen(): Promise<void> {
    // Half-open: a client that shuts down its side once it has sent the request still gets the
    // answer (the tools do not: bash cannot).
    const server = createServer({ allowHalfOpen: true }, (socket) => this.serve(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // Port 0: the system picks a free port, so units on one machine never contend for one.
      server.listen(0, HOST, () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  private unlisten(): void {
    const server = this.server!;
    this.server = undefined;
    this.port = undefined;
    // Stops accepting at once; connections already accepted are still answered (or cut off by
    // their deadline), and the next hook does not wait for them.
    server.close();
  }

  private serve(socket: Socket): void {
    const reader = new RequestReader();
    let registered: Registered | undefined;
    let answered = false;
    let running = false;
    // Until the request has arrived, then until the peer has read the answer and closed.
    const clock = this.options.clock ?? systemClock;
    let deadline = clock.after(this.deadlineMs, () => reply(refusal(`no whole request within ${this.deadlineMs / 1000} s`)));
    const reply = (result: ToolResult) => {
      if (answered || socket.destroyed) return;
      answered = true;
      deadline.cancel();
      socket.end(encodeAnswer(result));
      // Whatever else the peer sends is read and dropped, so that closing does not reset the
      // connection before the answer is read; a peer that never closes is cut off.
      deadline = clock.after(this.deadlineMs, () => socket.destroy());
    };
    socket.on('error', () => undefined); // the tool went away; nothing to answer
    socket.on('close', () => deadline.cancel());
    socket.on('end', () => {
      if (!running) reply(refusal('the request ended before its last byte'));
    });
    socket.on('data', (chunk: Buffer) => {
      if (answered) return;
      try {
        reader.push(chunk);
      } catch (e) {
        if (!(e instanceof FrameError)) throw e;
        return reply(refusal(e.message));
      }
      // The secret is checked as soon as it can be, before the rest of the request is buffered.
      if (!registered && reader.identity) {
        const { secret, contextId } = reader.identity;
        const known = this.contexts.get(contextId);
        if (!known) return reply(refusal(`unknown context id "${contextId}"`));
        if (!sameSecret(secret, known.secret)) return reply(refusal(`wrong secret for context id "${contextId}"`));
        registered = known;
      }
      const request = reader.request;
      if (registered && request && !running) {
        running = true;
        deadline.cancel();
        void this.run(registered, request).then(reply);
      }
    });
  }

  private get deadlineMs(): number {
    return this.options.deadlineMs ?? REQUEST_DEADLINE_MS;
  }

  private async run(registered: Registered, request: ToolRequest): Promise<ToolResult> {
    // The hook may have ended while its request was arriving.
    if (this.contexts.get(request.contextId) !== registered) return refusal(`unknown context id "${request.contextId}"`);
    return runTool(registered.ctx, request.command, request.args, {
      cwd: request.cwd,
      ...(request.stdin !== undefined ? { stdin: request.stdin } : {}),
      ...(request.fileContent !== undefined ? { fileContent: request.fileContent } : {}),
    });
  }
}
