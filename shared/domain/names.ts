// Entity names, with Juju's own grammar (juju/names) so that names valid in Juju are valid here
// and vice versa.
import { invalidArgument } from './errors.js';

// A name may not end in a digit-only segment: "foo-1" would read as a unit ("foo/1") or a
// revision, so every hyphen-separated segment must contain a letter.
const APPLICATION = '[a-z][a-z0-9]*(?:-[a-z0-9]*[a-z][a-z0-9]*)*';
// Unit and machine numbers come from sequences: no sign, no leading zeros, so each has one spelling.
const NUMBER = '(?:0|[1-9][0-9]*)';

const applicationRe = new RegExp(`^${APPLICATION}$`);
const unitRe = new RegExp(`^(${APPLICATION})/(${NUMBER})$`);
const machineRe = new RegExp(`^${NUMBER}$`);
const endpointRe = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

export const isValidApplicationName = (name: string): boolean => applicationRe.test(name);

export const isValidUnitName = (name: string): boolean => unitRe.test(name);

export const isValidMachineId = (id: string): boolean => machineRe.test(id);

export const isValidEndpointName = (name: string): boolean => endpointRe.test(name);

export function parseUnitName(name: string): { application: string; number: number } {
  const m = unitRe.exec(name);
  if (!m || m[1] === undefined || m[2] === undefined) throw invalidArgument(`invalid unit name "${name}"`);
  return { application: m[1], number: Number(m[2]) };
}

/**
 * The application of a unit, from its name ("mysql/0" → "mysql"); "" for a name with no "/". Takes
 * the name as valid: parseUnitName checks it.
 */
export function applicationOfUnit(unit: string): string {
  const slash = unit.lastIndexOf('/');
  return slash < 0 ? '' : unit.slice(0, slash);
}

export function unitName(application: string, number: number): string {
  if (!isValidApplicationName(application) || !Number.isSafeInteger(number) || number < 0) {
    throw invalidArgument(`invalid unit name "${application}/${number}"`);
  }
  return `${application}/${number}`;
}
