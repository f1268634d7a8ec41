// Juju's tabular output: columns separated by two spaces, padded to the widest cell, with no
// trailing spaces. Colour is applied after padding so it never disturbs the alignment.
import { escapeControlCharacters } from './terminal-text.js';

export type Style = 'green' | 'yellow' | 'red' | 'grey';
export type Cell = string | { text: string; style?: Style };

const CODES: Record<Style, string> = { green: '32', yellow: '33', red: '31', grey: '90' };

// Cells hold what charms and agents wrote (status messages): a newline or escape sequence in one
// would break the table or drive the terminal, so it is printed escaped (cli/terminal-text.ts).
const textOf = (cell: Cell) => escapeControlCharacters(typeof cell === 'string' ? cell : cell.text);

/**
 * `widths`: the columns' widths so far, widened to this table's and kept, for a table printed in
 * chunks as its rows arrive (a large model's status): later chunks keep the earlier columns' widths.
 * `alignRight`: the columns padded on the left, as Juju's tabwriter does for numbers (status's
 * Scale and Rev).
 */
export function renderTable(rows: Cell[][], colour: boolean, widths: number[] = [], alignRight: readonly number[] = []): string {
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, [...textOf(cell)].length)));
  return rows
    .map((row) => {
      // The last non-empty cell ends the line: Juju never pads the last column.
      let last = row.length - 1;
      while (last > 0 && textOf(row[last]!) === '') last--;
      return row
        .slice(0, last + 1)
        .map((cell, i) => {
          const text = textOf(cell);
          const right = alignRight.includes(i);
          const padded = right ? text.padStart(widths[i]!, ' ') : i === last ? text : text.padEnd(widths[i]!, ' ');
          const style = typeof cell === 'string' ? undefined : cell.style;
          if (!colour || !style || !text) return padded;
          const painted = `\x1b[${CODES[style]}m${text}\x1b[0m`;
          return right ? `${padded.slice(0, padded.length - text.length)}${painted}` : `${painted}${padded.slice(text.length)}`;
        })
        .join('  ')
        .trimEnd();
    })
    .map((line) => `${line}\n`)
    .join('');
}

/** How Juju colours a status word: good green, in-between yellow, bad red. */
export function statusStyle(status: string | undefined): Style | undefined {
  switch (status) {
    case 'active':
    case 'idle':
    case 'started':
    case 'running':
      return 'green';
    case 'error':
    case 'lost':
    case 'down':
    case 'provisioning error':
    case 'failed':
      return 'red';
    case 'blocked':
    case 'waiting':
    case 'maintenance':
    case 'allocating':
    case 'pending':
    case 'executing':
      return 'yellow';
    case 'terminated':
    case 'unknown':
      return 'grey';
    default:
      return undefined;
  }
}

export const styled = (text: string | undefined, style?: Style): Cell => (style ? { text: text ?? '', style } : (text ?? ''));
