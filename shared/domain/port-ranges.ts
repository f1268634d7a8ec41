// Port ranges as open-port and close-port take them (Juju's open-port,
// https://github.com/juju/juju/blob/2.9/worker/uniter/runner/jujuc/ports.go):
// `<port>[/<protocol>]`, `<from>-<to>[/<protocol>]` or `icmp`; the protocol defaults to tcp. A
// unit's open ports are kept in their canonical spelling (`80/tcp`, `8000-8080/udp`, `icmp`) so
// equal ranges compare equal.
import { invalidArgument } from './errors.js';

export interface PortRange {
  from: number;
  to: number;
  protocol: 'tcp' | 'udp' | 'icmp';
}

const FORMAT = '<port>[/<protocol>] or <from>-<to>[/<protocol>] or icmp';
const SHAPE = /^(?:(icmp)|([0-9]+)(?:-([0-9]+))?(?:\/([a-z0-9]+))?)$/;

/** Juju's words for each way a port argument can be wrong. */
export function parsePortRange(arg: string): PortRange {
  const m = SHAPE.exec(arg.toLowerCase());
  if (!m) throw invalidArgument(`expected ${FORMAT}; got "${arg}"`);
  if (m[1]) return { from: -1, to: -1, protocol: 'icmp' };
  const from = Number(m[2]);
  const to = m[3] !== undefined ? Number(m[3]) : from;
  const protocol = m[4] ?? 'tcp';
  if (protocol === 'icmp') throw invalidArgument(`protocol "icmp" doesn't support any ports; got "${from}"`);
  if (from > to) throw invalidArgument(`invalid port range ${from}-${to}/${protocol}; expected fromPort <= toPort`);
  const single = from === to;
  if (from < 1 || from > 65535) throw invalidArgument(`${single ? 'port' : 'fromPort'} must be in the range [1, 65535]; got "${from}"`);
  if (to < 1 || to > 65535) throw invalidArgument(`toPort must be in the range [1, 65535]; got "${to}"`);
  if (protocol !== 'tcp' && protocol !== 'udp') throw invalidArgument(`protocol must be "tcp", "udp", or "icmp"; got "${protocol}"`);
  return { from, to, protocol };
}

export function formatPortRange(range: PortRange): string {
  if (range.protocol === 'icmp') return 'icmp';
  return range.from === range.to ? `${range.from}/${range.protocol}` : `${range.from}-${range.to}/${range.protocol}`;
}

/** The canonical spelling of a port argument. */
export const canonicalPortRange = (arg: string) => formatPortRange(parsePortRange(arg));

export const portRangesOverlap = (a: PortRange, b: PortRange) => a.protocol === b.protocol && a.from <= b.to && b.from <= a.to;
