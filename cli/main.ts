// The `drover` command: Juju's verbs, flags and messages against a local or AWS controller.
// `run(argv, io)` is the whole CLI, so tests drive it in-process; run directly (or through the
// cli/drover.mjs bin), it uses the real terminal and exits with run's code: 0, 1 on failure,
// 2 on usage errors.
import { pathToFileURL } from 'node:url';
import { processIo, type CliIo } from './io.js';
import { clientVersion } from './version.js';

export type { CliIo } from './io.js';

export async function run(argv: string[], io: CliIo): Promise<number> {
  // `juju --version` prints the version alone: answered before the commands and their libraries load.
  if (argv.length === 1 && argv[0] === '--version') {
    io.stdout(`${clientVersion()}\n`);
    return 0;
  }
  const { runProgram } = await import('./program.js');
  return runProgram(argv, io);
}

export async function main(argv = process.argv.slice(2)): Promise<void> {
  process.exitCode = await run(argv, processIo());
}

// Run when executed directly (`node --import tsx cli/main.ts ...`), not when imported. Not awaited:
// the bin's bundle is CommonJS, which has no top-level await; run() turns every error into its exit code.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
