import type { ToolContext, ToolIO } from '../tool-context.js';

/** A hook tool: parses its arguments, acts on the hook's context, returns what it prints. */
export interface ToolCommand {
  name: string;
  run(ctx: ToolContext, args: string[], io: ToolIO): Promise<string>;
}
