// The orders status lists entities in, as localeCompare gives them for the names Juju allows
// (lowercase letters, digits, `-`, `.` and `/`; test/unit/natural-order.test.ts checks it), without
// the ICU collator that localeCompare sets up on first use: 10 to 20 ms of CPU, in a CLI run that
// costs about 60 in all (bench/RESULTS.md, "CLI start-up").

const isDigit = (code: number) => code >= 48 && code <= 57;

/** The end of the run of digits that starts at `i`. */
function digitsEnd(text: string, i: number): number {
  let end = i + 1;
  while (end < text.length && isDigit(text.charCodeAt(end))) end++;
  return end;
}

/** Two runs of digits by their value, at any length. */
function compareDigits(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return Math.sign(x.length - y.length);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * `a.localeCompare(b, 'en', { numeric: true })`: runs of digits compare as numbers (`app/2` before
 * `app/10`, machine `9` before `10`), everything else character by character.
 */
export function compareNatural(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(j);
    if (isDigit(ca) && isDigit(cb)) {
      const endA = digitsEnd(a, i);
      const endB = digitsEnd(b, j);
      const order = compareDigits(a.slice(i, endA), b.slice(j, endB));
      if (order !== 0) return order;
      i = endA;
      j = endB;
    } else if (ca !== cb) {
      return ca < cb ? -1 : 1;
    } else {
      i++;
      j++;
    }
  }
  return Math.sign(a.length - i - (b.length - j));
}

/** `a.localeCompare(b)`: character by character (`app10` before `app9`). */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
