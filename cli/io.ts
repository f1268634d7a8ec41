// Where the CLI reads and writes. Commands never touch `process` directly, so the whole CLI can run
// in-process in tests (run(argv, io)) as well as from the `drover` binary.
import { isatty } from 'node:tty';

export interface CliIo {
  /** Data: what scripts read (status, config values, get-constraints). */
  stdout(text: string): void;
  /** Messages: errors, progress, the per-entity lines of removals (as Juju prints them). */
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** One line from stdin (confirmations); undefined at end of input. */
  readLine(): Promise<string | undefined>;
  /** Ends long-running commands (status --watch, debug-log): Ctrl-C, or a test. */
  signal: AbortSignal;
  /**
   * This process's own stdin, stdout and stderr, which a child may be handed as they are
   * (`drover ssh`: a remote shell on the user's terminal, the exit status its own). Absent when
   * the CLI runs in-process (tests): a child's output then goes through stdout and stderr above.
   */
  ownStdio?: {
    stdinIsTTY: boolean;
    /**
     * While a child holds the terminal, Ctrl-C is the child's (an interactive shell ignores it):
     * drover must not die of it and leave the child behind. Returns the undo.
     */
    leaveInterruptsToChild(): () => void;
  };
}

/** The real terminal. */
export function processIo(): CliIo {
  const interrupt = new AbortController();
  process.once('SIGINT', () => interrupt.abort());
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    env: process.env,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    readLine: async () => {
      // Loaded for the prompts alone, not with every command.
      const { createInterface } = await import('node:readline');
      return new Promise((resolve) => {
        const rl = createInterface({ input: process.stdin });
        let answered = false;
        rl.once('line', (line) => {
          answered = true;
          rl.close();
          resolve(line);
        });
        rl.once('close', () => {
          if (!answered) resolve(undefined);
        });
      });
    },
    signal: interrupt.signal,
    // isatty, not process.stdin.isTTY: that getter opens a stream on stdin for every command.
    ownStdio: {
      stdinIsTTY: isatty(0),
      leaveInterruptsToChild: () => {
        const ignore = () => undefined;
        process.on('SIGINT', ignore);
        return () => void process.off('SIGINT', ignore);
      },
    },
  };
}

/** Colour only for people: on a TTY, and never with NO_COLOR (https://no-color.org). */
export function colourEnabled(io: CliIo): boolean {
  return io.stdoutIsTTY && !io.env.NO_COLOR;
}
