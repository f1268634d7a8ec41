// Text from charms and agents is printed with its control characters escaped
// (docs/reliability.md, "Defects found by a hostile probe, and their regression tests": a message forging log lines).
import { describe, expect, it } from 'vitest';
import { escapeControlCharacters } from '../../../cli/terminal-text.js';
import { renderTable } from '../../../cli/table.js';

describe('escapeControlCharacters', () => {
  it.each([
    ['line one\nunit-mysql-0: 10:00:00 ERROR forged', 'line one\\nunit-mysql-0: 10:00:00 ERROR forged'],
    ['carriage\rreturn', 'carriage\\rreturn'],
    ['tab\there', 'tab\\there'],
    ['\x1b[2J\x1b]0;pwned\x07', '\\x1b[2J\\x1b]0;pwned\\x07'],
    ['nul\u0000 del\u007f', 'nul\\x00 del\\x7f'],
    ['c1 csi\u009b31m', 'c1 csi\\x9b31m'],
    ['separator\u2028paragraph\u2029', 'separator\\u2028paragraph\\u2029'],
    ['bidi \u202eevil\u2066', 'bidi \\u202eevil\\u2066'],
  ])('%j → %j', (input, printed) => {
    expect(escapeControlCharacters(input)).toBe(printed);
  });

  it('leaves ordinary text, backslashes and non-ASCII letters as they are', () => {
    const text = 'hook "install" failed: C:\\charm\\hooks, ünïcode ✓, 日本語';
    expect(escapeControlCharacters(text)).toBe(text);
  });
});

describe('renderTable', () => {
  it('prints a status message holding a newline or escape sequence on its own row, escaped', () => {
    const out = renderTable(
      [
        ['Unit', 'Message'],
        ['mysql/0', 'ready\nmysql/1  active  forged\x1b[8m'],
      ],
      false,
    );
    expect(out).toBe('Unit     Message\nmysql/0  ready\\nmysql/1  active  forged\\x1b[8m\n');
  });
});
