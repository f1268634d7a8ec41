// Types of cached-build.mjs (plain JavaScript: the `drover` bin runs it before any TypeScript).

export const STAMP: string;

export interface BuiltFile {
  /** Relative to the output directory. */
  path: string;
  contents: string | Uint8Array;
  mode?: number;
}

export interface Build<O> {
  files: BuiltFile[];
  /** What the output's user needs to know of it (its files' names), kept in the stamp. */
  outputs: O;
  /** Absolute paths of every file the build read. */
  inputs: string[];
}

export function recordedPath(path: string): string;
export function writeAtomically(path: string, data: string | Uint8Array, mode?: number): void;
export function freshOutputs<O>(dir: string, key: string): O | undefined;
export function cachedBuild<O>(spec: {
  dir: string;
  key: string;
  build: () => Promise<Build<O>>;
  now?: () => number;
}): Promise<{ built: boolean; outputs: O }>;
