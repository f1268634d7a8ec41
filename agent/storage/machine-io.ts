// What preparing storage does to the machine, injected so that it is tested without EC2 or root:
// commands (mkfs.ext4, mount, umount, blkid, findmnt) and the few filesystem calls it makes.
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface MachineIo {
  run(command: string, args: string[]): Promise<CommandResult>;
  /** mkdir -p, the last directory with `mode` whatever the umask. */
  mkdirp(path: string, mode: number): void;
  exists(path: string): boolean;
}

export const systemMachineIo: MachineIo = {
  run: (command, args) =>
    new Promise((resolve) => {
      execFile(command, args, { encoding: 'utf8' }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 127) : 0;
        resolve({ code, stdout, stderr: stderr || (error && code === 127 ? String(error.message) : '') });
      });
    }),
  mkdirp: (path, mode) => {
    mkdirSync(path, { recursive: true, mode });
    chmodSync(path, mode);
  },
  exists: (path) => existsSync(path),
};

/** Runs a command that must succeed; its failure, in the command's own words, otherwise. */
export async function mustRun(io: MachineIo, command: string, args: string[]): Promise<string> {
  const result = await io.run(command, args);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr.trim() || `exit status ${result.code}`}`);
  return result.stdout;
}
