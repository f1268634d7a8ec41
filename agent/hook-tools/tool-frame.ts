// The wire format between a hook tool (agent/hook-tools/hook-tool.bash) and the unit agent's tool
// server (tool-server.ts): simple enough for bash to write and read with builtins alone, so a tool
// call costs a bash start and one TCP round trip, not a Node start.
//
// Request: NUL-terminated fields, then the payload's bytes, unterminated:
//
//   drover-tool/1 \0 <secret> \0 <context id> \0 <cwd> \0 <tool> \0 <argc> \0 <arg>\0 ×argc
//   <payload kind: none | stdin | file> \0 <payload bytes, decimal> \0 <payload>
//
// The request says where it ends, because bash cannot half-close a /dev/tcp socket. Arguments
// cannot hold NUL (execve's strings end at one), so NUL terminates them losslessly.
//
// Answer: a header line, then three parts of the byte lengths it gives:
//
//   drover-tool/1 <exit code> <stderr bytes> <-o path bytes> <body bytes> <raw: 0|1>\n
//   <stderr><path><body>
//
// The body is the -o file's text when there is a path, else stdout. bash variables cannot hold a
// NUL byte; a body that has one is flagged raw, and the tool copies it byte for byte up to the
// end of the connection (it is the answer's last part). stderr is the agent's own error text, so
// its NULs, if a value ever brought one in, are dropped rather than misalign the parts.
import type { ToolResult } from './tool-context.js';

export const TOOL_PROTOCOL = 'drover-tool/1';

/** Standard input or the --file's text. The tool refuses more itself (hook-tool.bash says the same number). */
export const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;
/** Every field together: far above what execve lets a process's arguments hold (2 MiB on Linux). */
export const MAX_FIELDS_BYTES = 4 * 1024 * 1024;

export type PayloadKind = 'none' | 'stdin' | 'file';

export interface ToolRequest {
  secret: string;
  contextId: string;
  cwd: string;
  command: string;
  args: string[];
  stdin?: string;
  fileContent?: string;
}

/** A frame that cannot be a request; the server answers `error: bad request: <message>`. */
export class FrameError extends Error {}

/**
 * The longest each field before the arguments may be. They bound what a process that has not yet
 * shown a secret can make the agent buffer: the server checks the secret as soon as the context
 * id has arrived, within a request's first 600 bytes.
 */
const HEAD = [
  { name: 'protocol', max: TOOL_PROTOCOL.length },
  { name: 'secret', max: 64 },
  { name: 'context id', max: 512 },
  { name: 'working directory', max: 4096 },
  { name: 'tool name', max: 64 },
  { name: 'argument count', max: 7 },
] as const;
const DECIMAL = /^(0|[1-9]\d*)$/;

/** Reads one request from the bytes of a connection as they arrive; throws FrameError at the first wrong byte it can tell. */
export class RequestReader {
  /** The field still arriving, as the chunks that brought it. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private readonly fields: string[] = [];
  private fieldBytes = 0;
  private argc?: number;
  private payloadKind?: PayloadKind;
  private payloadLength?: number;
  private readonly payload: Buffer[] = [];
  private payloadReceived = 0;
  private done?: ToolRequest;

  /** The request's secret and context id, once both have arrived. */
  get identity(): { secret: string; contextId: string } | undefined {
    return this.fields.length >= 3 ? { secret: this.fields[1]!, contextId: this.fields[2]! } : undefined;
  }

  /** The whole request, once its last byte has arrived; bytes after it are not read. */
  get request(): ToolRequest | undefined {
    return this.done;
  }

  push(chunk: Buffer): void {
    if (this.done) return;
    if (this.payloadLength !== undefined) return this.pushPayload(chunk);
    // Each byte is looked at once: a field arriving in many chunks is kept as those chunks and
    // joined when its NUL comes, so a long argument costs no more than its length.
    let rest = chunk;
    for (let end = rest.indexOf(0); end >= 0; end = rest.indexOf(0)) {
      this.takeField(Buffer.concat([...this.pending, rest.subarray(0, end)]));
      this.pending = [];
      this.pendingBytes = 0;
      rest = rest.subarray(end + 1);
      if (this.payloadLength !== undefined) return this.pushPayload(rest);
    }
    if (rest.length === 0) return;
    this.pending.push(rest);
    this.pendingBytes += rest.length;
    this.checkLength(this.pendingBytes, false);
  }

  private get expectedFields(): number | undefined {
    return this.argc === undefined ? undefined : HEAD.length + this.argc + 2;
  }

  /** A field too long, whole or still arriving, is refused before more of it is buffered. */
  private checkLength(bytes: number, whole: boolean): void {
    const index = this.fields.length;
    if (index === 0 && !whole && !TOOL_PROTOCOL.startsWith(Buffer.concat(this.pending).toString('latin1')))
      throw new FrameError(`not ${TOOL_PROTOCOL}`);
    const head = HEAD[index];
    if (head && bytes > head.max) throw new FrameError(`${head.name} too long`);
    if (this.fieldBytes + bytes > MAX_FIELDS_BYTES) throw new FrameError(`request too large: its fields exceed ${MAX_FIELDS_BYTES} bytes`);
    const expected = this.expectedFields;
    if (expected !== undefined && index >= expected - 2 && bytes > 10) throw new FrameError('payload header too long');
  }

  private takeField(bytes: Buffer): void {
    this.checkLength(bytes.length, true);
    this.fieldBytes += bytes.length + 1;
    const value = bytes.toString('utf8');
    const index = this.fields.length;
    this.fields.push(value);
    if (index === 0 && value !== TOOL_PROTOCOL) throw new FrameError(`not ${TOOL_PROTOCOL}`);
    if (index === HEAD.length - 1) {
      if (!DECIMAL.test(value)) throw new FrameError(`argument count "${value}" is not a number`);
      this.argc = Number(value);
    }
    const expected = this.expectedFields;
    if (expected === undefined) return;
    if (index === expected - 2) {
      if (value !== 'none' && value !== 'stdin' && value !== 'file')
        throw new FrameError(`payload kind "${value}" is none of none, stdin, file`);
      this.payloadKind = value;
    } else if (index === expected - 1) {
      if (!DECIMAL.test(value)) throw new FrameError(`payload length "${value}" is not a number`);
      const length = Number(value);
      if (length > MAX_PAYLOAD_BYTES) throw new FrameError(`request too large: a payload of ${length} bytes exceeds ${MAX_PAYLOAD_BYTES}`);
      if (this.payloadKind === 'none' && length !== 0) throw new FrameError('payload kind none with a payload');
      this.payloadLength = length;
    }
  }

  private pushPayload(chunk: Buffer): void {
    const wanted = this.payloadLength! - this.payloadReceived;
    const part = chunk.length > wanted ? chunk.subarray(0, wanted) : chunk;
    if (part.length > 0) this.payload.push(part);
    this.payloadReceived += part.length;
    if (this.payloadReceived === this.payloadLength) this.finish();
  }

  private finish(): void {
    const [, secret, contextId, cwd, command] = this.fields as [string, string, string, string, string];
    const args = this.fields.slice(HEAD.length, HEAD.length + this.argc!);
    const text = Buffer.concat(this.payload).toString('utf8');
    this.done = {
      secret,
      contextId,
      cwd,
      command,
      args,
      ...(this.payloadKind === 'stdin' ? { stdin: text } : {}),
      ...(this.payloadKind === 'file' ? { fileContent: text } : {}),
    };
  }
}

/** The answer's bytes (see the top of this file). */
export function encodeAnswer(result: ToolResult): Buffer {
  const stderr = Buffer.from(result.stderr.replaceAll('\0', ''));
  const path = Buffer.from(result.file?.path ?? '');
  // A tool given -o prints nothing (output.ts): the file's text is the body.
  const body = Buffer.from(result.file ? result.file.content : result.stdout);
  const raw = body.includes(0) ? 1 : 0;
  const header = `${TOOL_PROTOCOL} ${result.code} ${stderr.length} ${path.length} ${body.length} ${raw}\n`;
  return Buffer.concat([Buffer.from(header), stderr, path, body]);
}

/** A request's bytes, as hook-tool.bash writes them: for callers in a Node process (tests, bench/support's simulated hooks). */
export function encodeRequest(r: ToolRequest): Buffer {
  const payload = Buffer.from(r.stdin ?? r.fileContent ?? '');
  const kind: PayloadKind = r.stdin !== undefined ? 'stdin' : r.fileContent !== undefined ? 'file' : 'none';
  const fields = [TOOL_PROTOCOL, r.secret, r.contextId, r.cwd, r.command, String(r.args.length), ...r.args, kind, String(payload.length)];
  return Buffer.concat([Buffer.from(fields.map((f) => `${f}\0`).join('')), payload]);
}

/** An answer's parts, as hook-tool.bash reads them; undefined for bytes that are not a whole answer. */
export function decodeAnswer(bytes: Buffer): { code: number; stderr: string; path: string; body: string } | undefined {
  const end = bytes.indexOf(10);
  const header = /^drover-tool\/1 (\d+) (\d+) (\d+) (\d+) [01]$/.exec(bytes.subarray(0, Math.max(end, 0)).toString());
  if (end < 0 || !header) return undefined;
  const [code, stderrBytes, pathBytes, bodyBytes] = header.slice(1).map(Number) as [number, number, number, number];
  if (bytes.length !== end + 1 + stderrBytes + pathBytes + bodyBytes) return undefined;
  let at = end + 1;
  const part = (n: number) => bytes.subarray(at, (at += n)).toString();
  return { code, stderr: part(stderrBytes), path: part(pathBytes), body: part(bodyBytes) };
}
