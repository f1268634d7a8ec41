// Text from the controller that the CLI prints to a terminal: log messages and status messages
// come from charms and agents, so they may hold anything. A newline in a `juju-log` message would
// print as a second, forged log line, and an escape sequence would drive the user's terminal
// (clear it, retitle it, hide what follows). Control characters are therefore printed as the
// escapes a reader recognises (`\n`, `\t`, `\x1b`) instead.
//
// The backslash itself is left as it is: escaping it would garble every Windows path and regex
// in ordinary messages, and an unescaped `\n` typed by a charm stays on its own line, so it can
// make a line look odd but cannot split it.

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f', '\v': '\\v' };

/**
 * C0 controls and DEL; C1 controls (a terminal may read U+009B as the start of a control sequence);
 * the Unicode line and paragraph separators; the bidirectional overrides and isolates, which make
 * text display in another order than it reads (CVE-2021-42574, "Trojan Source").
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL, (c) => {
    const named = NAMED[c];
    if (named) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
