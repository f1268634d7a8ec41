// Printing a tool's value: to stdout, or to the `-o/--output` file.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { formatOf, formatValue } from './format.js';
import type { ToolIO } from './tool-context.js';
import { runtimeError } from './tool-errors.js';

export async function output(
  value: unknown,
  flags: Record<string, string | boolean>,
  io: ToolIO,
  options: { ordered?: boolean } = {},
): Promise<string> {
  const text = formatValue(value, formatOf(flags), options);
  if (typeof flags.output === 'string' && flags.output !== '') {
    try {
      await writeFile(resolve(io.cwd, flags.output), text);
    } catch (e) {
      throw runtimeError(`cannot write ${flags.output}: ${(e as Error).message}`);
    }
    return '';
  }
  return text;
}
