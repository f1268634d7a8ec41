// `drover scp` on the local controller: a machine's disk is its directory on this host
// (local-machine.ts), so a copy is a copy between directories, with scp's rules: several sources
// go into a directory, a directory only with -r, and each failure is reported while the others
// are still copied. Relative remote paths are from the machine's home; absolute ones are this
// host's, which a local machine shares.
import { copyFileSync, cpSync, existsSync, statSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { errorMessage } from '#shared/domain/errors.js';
import { CliError } from '../errors.js';

export interface CopyPath {
  /** What the user wrote (the remote part for a remote path): scp names paths so in its errors. */
  shown: string;
  /** Where it is on this host. */
  local: string;
}

/** A remote path on a local machine: relative ones from the machine's home, an empty one the home itself. */
export const onMachine = (machineDir: string, path: string): string =>
  path === '' ? machineDir : isAbsolute(path) ? path : join(machineDir, path);

/** scp's letter flags in its options (`-rp`, `-r -C`); the letters of options that take a value, with it, are skipped. */
export function scpFlags(options: string[]): Set<string> {
  const flags = new Set<string>();
  for (const option of options) {
    if (!option.startsWith('-')) continue;
    for (const letter of option.slice(1)) {
      if ('cDFiJlOoPSX'.includes(letter)) break;
      flags.add(letter);
    }
  }
  return flags;
}

const isDirectory = (path: string) => existsSync(path) && statSync(path).isDirectory();

/** Copies as scp does; throws Juju's wrapping of scp's failure (`exit status 1 (scp: ...)`) if any source failed. */
export function copyPaths(sources: CopyPath[], destination: CopyPath, options: { recursive: boolean; preserve: boolean }): void {
  const intoDirectory = isDirectory(destination.local);
  if (sources.length > 1 && !intoDirectory) throw new CliError(`exit status 1 (scp: ${destination.shown}: Not a directory)`);
  const failures: string[] = [];
  for (const source of sources) {
    if (!existsSync(source.local)) {
      failures.push(`scp: ${source.shown}: No such file or directory`);
      continue;
    }
    const target = intoDirectory ? join(destination.local, basename(source.local)) : destination.local;
    try {
      if (statSync(source.local).isDirectory()) {
        if (!options.recursive) {
          failures.push(`scp: ${source.shown}: not a regular file`);
          continue;
        }
        cpSync(source.local, target, { recursive: true, preserveTimestamps: options.preserve });
      } else {
        copyFileSync(source.local, target);
      }
    } catch (e) {
      failures.push(`scp: ${destination.shown}: ${errorMessage(e)}`);
    }
  }
  if (failures.length) throw new CliError(`exit status 1 (${failures.join('\n')})`);
}
