// Bases (`ubuntu@22.04`), Juju 3's name for what Juju 2 called a series (`jammy`). drover keeps
// series internally (machines, charm URLs, status), so a base is translated at the edges: charms
// that declare only `bases`, `deploy --base`, `add-machine --base`. The table and the messages
// follow Juju's core/base and core/series packages
// (https://github.com/juju/juju/tree/3.6/core/base, https://github.com/juju/juju/tree/3.6/core/series).
import { invalidArgument } from './errors.js';

/** Ubuntu releases drover knows, oldest first: version → series. */
const UBUNTU: ReadonlyArray<readonly [version: string, series: string]> = [
  ['12.04', 'precise'],
  ['12.10', 'quantal'],
  ['13.04', 'raring'],
  ['13.10', 'saucy'],
  ['14.04', 'trusty'],
  ['14.10', 'utopic'],
  ['15.04', 'vivid'],
  ['15.10', 'wily'],
  ['16.04', 'xenial'],
  ['16.10', 'yakkety'],
  ['17.04', 'zesty'],
  ['17.10', 'artful'],
  ['18.04', 'bionic'],
  ['18.10', 'cosmic'],
  ['19.04', 'disco'],
  ['19.10', 'eoan'],
  ['20.04', 'focal'],
  ['20.10', 'groovy'],
  ['21.04', 'hirsute'],
  ['21.10', 'impish'],
  ['22.04', 'jammy'],
  ['22.10', 'kinetic'],
  ['23.04', 'lunar'],
  ['23.10', 'mantic'],
  ['24.04', 'noble'],
  ['24.10', 'oracular'],
  ['25.04', 'plucky'],
];

export interface Base {
  os: string;
  /** The channel's track, e.g. "22.04"; a risk (`22.04/stable`) is dropped, as Juju displays it. */
  channel: string;
}

/** `ubuntu@22.04`, Juju's Base.DisplayString. */
export const formatBase = (base: Base) => `${base.os}@${base.channel}`;

/** Parses `ubuntu@22.04` (or `ubuntu@22.04/stable`), with Juju's message for a malformed one. */
export function parseBase(text: string): Base {
  const at = text.indexOf('@');
  if (at <= 0 || at === text.length - 1) {
    throw invalidArgument(`expected base string to contain os and channel separated by '@'`);
  }
  const os = text.slice(0, at);
  const channel = text.slice(at + 1).split('/')[0]!;
  return { os, channel };
}

/** The series of a base: `ubuntu@22.04` → jammy; Juju's message for an unknown one. */
export function baseToSeries(base: Base): string {
  if (base.os !== 'ubuntu') throw invalidArgument(`base "${formatBase(base)}" not supported: drover runs Ubuntu machines only`);
  const found = UBUNTU.find(([version]) => version === base.channel);
  if (!found) throw invalidArgument(`unknown series for version: "${base.channel}"`);
  return found[1];
}

/** The base of a series: jammy → ubuntu@22.04; Juju's message for an unknown one. */
export function seriesToBase(series: string): Base {
  const found = UBUNTU.find(([, name]) => name === series);
  if (!found) throw invalidArgument(`unknown version for series: "${series}"`);
  return { os: 'ubuntu', channel: found[0] };
}

/** `ubuntu@22.04` for a series drover knows, else undefined (status of an odd machine). */
export function displayBaseOfSeries(series: string): string | undefined {
  const found = UBUNTU.find(([, name]) => name === series);
  return found ? `ubuntu@${found[0]}` : undefined;
}

/**
 * The series a deploy or add-machine asks for, from `--series` or `--base` (never both, as Juju's
 * Init refuses).
 */
export function requestedSeries(options: { series?: string; base?: string }): string | undefined {
  if (options.series && options.base) throw invalidArgument('--series and --base cannot be specified together');
  if (options.base) return baseToSeries(parseBase(options.base));
  return options.series;
}

/** Juju's unsupportedBaseError, for a requested series the charm does not list. */
export function unsupportedBaseMessage(requested: string, supportedSeries: string[]): string {
  const show = (series: string) => displayBaseOfSeries(series) ?? series;
  return `base "${show(requested)}" not supported by charm, the charm supported bases are: ${supportedSeries.map(show).join(', ')}`;
}
