// Charm channels as Juju 3.6 reads them (internal/charm/channel.go,
// https://github.com/juju/juju/blob/3.6/internal/charm/channel.go): `[track/]risk[/branch]`, or a
// track alone, which means its stable risk. `latest` is the track a channel without one names.
import { invalidArgument } from '../domain/errors.js';

export const RISKS = ['stable', 'candidate', 'beta', 'edge'] as const;
export type Risk = (typeof RISKS)[number];

export interface Channel {
  /** Empty: the charm's default track (`latest` unless its publisher chose another). */
  track: string;
  risk: Risk;
  branch?: string;
}

const isRisk = (text: string): text is Risk => (RISKS as readonly string[]).includes(text);

export function parseChannel(text: string): Channel {
  const parts = text.trim().split('/');
  if (text.trim() === '') throw invalidArgument('empty channel not valid');
  const bad = () => invalidArgument(`risk in channel "${text}" not valid`);
  if (parts.some((p) => p === '')) throw invalidArgument(`channel "${text}" not valid`);
  if (parts.length === 1) return isRisk(parts[0]!) ? { track: '', risk: parts[0]! } : { track: parts[0]!, risk: 'stable' };
  if (parts.length === 2) {
    // `stable/hotfix` is risk and branch; `14/stable` is track and risk.
    if (isRisk(parts[0]!)) return { track: '', risk: parts[0]!, branch: parts[1]! };
    if (!isRisk(parts[1]!)) throw bad();
    return { track: parts[0]!, risk: parts[1]! };
  }
  if (parts.length === 3) {
    if (!isRisk(parts[1]!)) throw bad();
    return { track: parts[0]!, risk: parts[1]!, branch: parts[2]! };
  }
  throw invalidArgument(`channel is malformed and has too many components "${text}"`);
}

/** Juju's normalized form: `latest` dropped (`stable`, `14/stable`, `edge/fix`). */
export function normalizedChannel(channel: Channel): string {
  const track = channel.track === 'latest' ? '' : channel.track;
  return [track, channel.risk, channel.branch].filter((p) => p !== undefined && p !== '').join('/');
}

/** With its track always named (`latest/stable`), as status's charm-channel shows it. */
export function fullChannel(channel: Channel): string {
  return [channel.track || 'latest', channel.risk, channel.branch].filter((p) => p !== undefined && p !== '').join('/');
}
