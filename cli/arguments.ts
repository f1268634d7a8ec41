// Parsers for flag values and positional arguments. A bad one is a usage error (exit 2), as in
// Juju, where such checks run in the command's Init before anything is sent.
import { InvalidArgumentError } from 'commander';
import { isValidApplicationName, isValidMachineId, isValidUnitName } from '#shared/domain/names.js';
import { UsageError } from './errors.js';

/** For `-n`: commander reports the InvalidArgumentError as a usage error. */
export function positiveInteger(flag: string) {
  return (value: string): number => {
    if (!/^[0-9]+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`${flag} must be a positive integer`);
    return Number(value);
  };
}

/** For repeatable flags such as `--config`. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** For deploy's `-n`: 0 deploys an application without units. */
export function nonNegativeInteger(flag: string) {
  return (value: string): number => {
    if (!/^[0-9]+$/.test(value)) throw new InvalidArgumentError(`${flag} must be a non-negative integer`);
    return Number(value);
  };
}

/** `--to 1,2,lxd:3`. */
export const commaList = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

export function checkUnitNames(names: string[]): void {
  for (const name of names) if (!isValidUnitName(name)) throw new UsageError(`invalid unit name "${name}"`);
}

export function checkApplicationNames(names: string[]): void {
  for (const name of names) if (!isValidApplicationName(name)) throw new UsageError(`invalid application name "${name}"`);
}

export function checkMachineIds(ids: string[]): void {
  for (const id of ids) if (!isValidMachineId(id)) throw new UsageError(`invalid machine id "${id}"`);
}

/** `key=value` pairs; `key=@file` reads the value from a file (Juju's config syntax). */
export function splitAssignment(arg: string): [string, string] | undefined {
  const eq = arg.indexOf('=');
  if (eq <= 0) return undefined;
  return [arg.slice(0, eq), arg.slice(eq + 1)];
}

/** Juju's check on every removal: --no-wait ("do not wait for each step") only with --force. */
export function checkNoWait(opts: { force?: boolean; wait: boolean }): void {
  if (!opts.wait && !opts.force) throw new UsageError('--no-wait without --force not valid');
}
