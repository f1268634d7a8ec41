// One entry of a charm archive, as every reader gives it and the rules judge it (./charm-archive-rules.ts).

/** One entry of a charm archive; `data` only where the whole archive is in memory. */
export interface Entry {
  path: string;
  type: 'file' | 'dir' | 'symlink';
  mode: number;
  data?: Buffer;
  linkTarget?: string;
}
