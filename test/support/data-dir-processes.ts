// Every live process that belongs to a local controller's data directory: its supervisor and
// controller (`--data-dir <dir>`), DynamoDB Local (`-dbPath <dir>/dynamodb`), the machine agents
// (their bundle and machine directories are under it) and whatever they run. Read from each
// process's command line in /proc, so a process nothing recorded is found too. Linux only.
import { readdirSync, readFileSync } from 'node:fs';

export interface DataDirProcess {
  pid: number;
  command: string;
}

export function processesOfDataDir(dataDir: string): DataDirProcess[] {
  const found: DataDirProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      // A process that exited but is not yet reaped (a zombie) has an empty command line: not live.
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
    } catch {
      continue; // gone meanwhile
    }
    if (args.some((a) => a === dataDir || a.startsWith(`${dataDir}/`) || a.includes(`=${dataDir}/`)))
      found.push({ pid: Number(entry), command: args.join(' ') });
  }
  return found;
}
