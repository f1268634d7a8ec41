// Printing a tool's value: to stdout, or to the `-o/--output` file, which the hook tool process
// writes (tool-context.ts, ToolResult.file): the agent only hands it the text.
import { formatOf, formatValue } from './format.js';
import type { ToolIO } from './tool-context.js';

export async function output(
  value: unknown,
  flags: Record<string, string | boolean>,
  io: ToolIO,
  options: { ordered?: boolean } = {},
): Promise<string> {
  const text = formatValue(value, formatOf(flags), options);
  if (typeof flags.output === 'string' && flags.output !== '') {
    io.output = { path: flags.output, content: text };
    return '';
  }
  return text;
}
