// opened-ports [--format] [--endpoints]: "lists all ports or port ranges opened by a unit", as
// juju/juju worker/uniter/runner/jujuc/opened-ports.go: one `80/tcp` or `8000-8100/tcp` per line
// (smart), sorted by port as Juju's network.SortPortRanges does. drover opens ports for the whole
// unit, never per endpoint, so --endpoints marks every range `(*)`, Juju's "all endpoints".
import { parsePortRange, type PortRange } from '#shared/domain/port-ranges.js';
import { boolFlag, parseFlags } from '../flags.js';
import { outputFlags } from '../format.js';
import { output } from '../output.js';
import { checkEmpty } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

/** Juju's PortRange.LessThan: by first port, then last port, then protocol. */
function byPort(a: PortRange, b: PortRange): number {
  if (a.from !== b.from) return a.from - b.from;
  if (a.to !== b.to) return a.to - b.to;
  return a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0;
}

export function sortPortRanges(ranges: string[]): string[] {
  return ranges
    .map((text) => ({ text, range: parsePortRange(text) }))
    .sort((a, b) => byPort(a.range, b.range))
    .map((r) => r.text);
}

export const openedPorts: ToolCommand = {
  name: 'opened-ports',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, [...outputFlags, boolFlag('endpoints', 'endpoints')]);
    checkEmpty(positional);
    const ranges = sortPortRanges(ctx.openedPorts());
    return output(flags.endpoints === true ? ranges.map((r) => `${r} (*)`) : ranges, flags, io);
  },
};
