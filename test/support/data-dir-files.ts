// Reading what a local controller left in its data directory, for e2e tests: a unit's own files
// (the test charms' hook-log, under machines/<id>/units/<unit>/), and every file under a directory
// that holds some text (to show that a secret's content reached no log).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The lines of a unit's file (`hook-log`) on whichever machine it is deployed to; [] until it exists. */
export function unitFileLines(dataDir: string, unit: string, file: string): string[] {
  const machines = join(dataDir, 'machines');
  for (const machine of existsSync(machines) ? readdirSync(machines) : []) {
    const path = join(machines, machine, 'units', unit.replace('/', '-'), file);
    if (existsSync(path)) return readFileSync(path, 'utf8').split('\n').filter(Boolean);
  }
  return [];
}

/** Every file under `root` (but the directories `skip` names, relative to it) whose bytes hold any of `needles`. */
export function filesContaining(root: string, needles: string[], skip: string[] = []): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (skip.includes(relative(root, path))) continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && statSync(path).size > 0) {
        const text = readFileSync(path).toString('latin1');
        if (needles.some((n) => text.includes(n))) found.push(relative(root, path));
      }
    }
  };
  walk(root);
  return found;
}
