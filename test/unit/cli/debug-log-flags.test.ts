// debug-log's flags as Juju 3.6 reads them: the level check, and how many lines first and
// whether to follow (--limit, --replay, --lines, --tail/--no-tail, and stdout a terminal or not).
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { debugLogLevel, debugLogPlan, TAIL_LIMIT } from '../../../cli/debug-log-flags.js';

describe('debug-log flags', () => {
  it('takes a level in any case, WARN for WARNING, and refuses CRITICAL and typos in Juju’s words', () => {
    expect(debugLogLevel('info')).toBe('INFO');
    expect(debugLogLevel('WARN')).toBe('WARNING');
    expect(() => debugLogLevel('CRITICAL')).toThrow(InvalidArgumentError);
    expect(() => debugLogLevel('loud')).toThrow('level value "loud" is not one of "TRACE", "DEBUG", "INFO", "WARNING", "ERROR"');
  });

  it('follows only on a terminal or with --tail; --limit shows the most recent lines and exits', () => {
    const flags = { lines: 10, limit: 0 };
    expect(debugLogPlan(flags, true)).toEqual({ firstLimit: 10, follow: true });
    expect(debugLogPlan(flags, false)).toEqual({ firstLimit: 10, follow: false });
    expect(debugLogPlan({ ...flags, tail: true }, false)).toEqual({ firstLimit: 10, follow: true });
    expect(debugLogPlan({ ...flags, tail: false }, true)).toEqual({ firstLimit: 10, follow: false });
    expect(debugLogPlan({ ...flags, replay: true }, false)).toEqual({ firstLimit: TAIL_LIMIT, follow: false });
    expect(debugLogPlan({ ...flags, limit: 50, tail: true }, true)).toEqual({ firstLimit: 50, follow: false });
  });
});
