// The local controller's debug log: one JSON record per line in `<dir>/debug-log.jsonl`. Cursors
// are byte offsets, so tailing reads only what was appended since.
import { appendFile, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { recordMatches, type LogPage, type LogQuery, type LogRecord, type LogSink } from './log-sink.js';

export const DEBUG_LOG_FILE = 'debug-log.jsonl';

async function readFrom(path: string, offset: number): Promise<Buffer> {
  const file = await open(path, 'r').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  if (!file) return Buffer.alloc(0);
  try {
    const { size } = await file.stat();
    if (offset >= size) return Buffer.alloc(0);
    const buffer = Buffer.alloc(size - offset);
    await file.read(buffer, 0, buffer.length, offset);
    return buffer;
  } finally {
    await file.close();
  }
}

export function fileLogSink(dir: string): LogSink {
  const path = join(dir, DEBUG_LOG_FILE);
  let ready: Promise<unknown> | undefined;
  return {
    async append(records: LogRecord[]) {
      if (records.length === 0) return;
      ready ??= mkdir(dir, { recursive: true });
      await ready;
      // One write per batch, opened with O_APPEND: concurrent batches never interleave within a line.
      await appendFile(path, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    },
    async read(query: LogQuery): Promise<LogPage> {
      const start = query.after !== undefined && /^\d+$/.test(query.after) ? Number(query.after) : 0;
      const data = await readFrom(path, start);
      const matching: { record: LogRecord; end: number }[] = [];
      let lineStart = 0;
      for (let i = data.indexOf(10); i !== -1; lineStart = i + 1, i = data.indexOf(10, lineStart)) {
        let record: LogRecord;
        try {
          record = JSON.parse(data.subarray(lineStart, i).toString('utf8')) as LogRecord;
        } catch {
          continue; // a line cut short by a crash
        }
        if (recordMatches(record, query)) matching.push({ record, end: start + i + 1 });
      }
      const complete = start + lineStart; // a partly written last line is read next time
      if (query.after !== undefined) {
        const page = matching.slice(0, query.limit);
        const cursor = page.length < matching.length ? page[page.length - 1]!.end : complete;
        return { records: page.map((m) => m.record), cursor: String(cursor) };
      }
      return { records: matching.slice(-query.limit).map((m) => m.record), cursor: String(complete) };
    },
  };
}
