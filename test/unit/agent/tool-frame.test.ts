// The hook tools' wire format (agent/hook-tools/tool-frame.ts), as bytes: a request read however
// TCP splits it, and the answer's layout.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodeAnswer,
  encodeRequest,
  FrameError,
  RequestReader,
  TOOL_PROTOCOL,
  type ToolRequest,
} from '../../../agent/hook-tools/tool-frame.js';

const text = fc.string({ unit: 'binary', maxLength: 30 }).filter((s) => !s.includes('\0'));

const request = fc
  .record(
    {
      secret: fc.stringMatching(/^[\w-]{43}$/),
      contextId: fc.stringMatching(/^[a-z]+\/\d-[a-z-]+-\d+$/),
      cwd: text,
      command: fc.stringMatching(/^[a-z-]{1,20}$/),
      args: fc.array(text, { maxLength: 5 }),
      stdin: fc.string({ unit: 'binary', maxLength: 60 }),
      fileContent: fc.string({ unit: 'binary', maxLength: 60 }),
    },
    { requiredKeys: ['secret', 'contextId', 'cwd', 'command', 'args'] },
  )
  .map((r) => (r.stdin !== undefined && r.fileContent !== undefined ? { ...r, fileContent: undefined } : r));

describe('RequestReader', () => {
  it('reads the same request however the bytes are split (property)', () => {
    fc.assert(
      fc.property(request, fc.array(fc.nat(), { maxLength: 8 }), (r, cuts) => {
        const expected = Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as unknown as ToolRequest;
        const bytes = encodeRequest(expected);
        const points = [...new Set(cuts.map((c) => c % bytes.length))].sort((a, b) => a - b);
        const reader = new RequestReader();
        let from = 0;
        for (const to of [...points, bytes.length]) {
          expect(reader.request).toBeUndefined();
          reader.push(bytes.subarray(from, to));
          from = to;
        }
        expect(reader.request).toEqual(expected);
      }),
    );
  });

  it('knows the identity once the context id has arrived, before the rest', () => {
    const reader = new RequestReader();
    reader.push(Buffer.from(`${TOOL_PROTOCOL}\0s3cret\0ctx`));
    expect(reader.identity).toBeUndefined();
    reader.push(Buffer.from('-1\0/cw'));
    expect(reader.identity).toEqual({ secret: 's3cret', contextId: 'ctx-1' });
    expect(reader.request).toBeUndefined();
  });

  it('refuses the first byte that cannot begin a request', () => {
    expect(() => new RequestReader().push(Buffer.from('{"contextId":'))).toThrow(FrameError);
    expect(() => new RequestReader().push(Buffer.from('drover-tool/1x'))).toThrow(`not ${TOOL_PROTOCOL}`);
  });
});

describe('encodeAnswer', () => {
  const parts = (answer: Buffer) => {
    const newline = answer.indexOf(10);
    return { header: answer.subarray(0, newline).toString(), rest: answer.subarray(newline + 1).toString() };
  };

  it('gives the exit code and byte lengths, then stderr, the -o path and the body', () => {
    expect(parts(encodeAnswer({ code: 2, stdout: 'é\n', stderr: 'ERROR x\n' }))).toEqual({
      header: `${TOOL_PROTOCOL} 2 8 0 3 0`,
      rest: 'ERROR x\né\n',
    });
    expect(parts(encodeAnswer({ code: 0, stdout: '', stderr: '', file: { path: 'out.txt', content: 'v\n' } }))).toEqual({
      header: `${TOOL_PROTOCOL} 0 0 7 2 0`,
      rest: 'out.txtv\n',
    });
  });

  it('flags a body holding NUL as raw, and drops NUL from stderr so the parts stay aligned', () => {
    expect(parts(encodeAnswer({ code: 1, stdout: 'a\0b', stderr: 'ERROR \0x\n' }))).toEqual({
      header: `${TOOL_PROTOCOL} 1 8 0 3 1`,
      rest: 'ERROR x\na\0b',
    });
  });
});
