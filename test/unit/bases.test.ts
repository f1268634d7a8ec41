import { describe, expect, it } from 'vitest';
import { baseToSeries, parseBase, requestedSeries, seriesToBase, unsupportedBaseMessage } from '#shared/domain/bases.js';

describe('bases and series', () => {
  it.each([
    ['ubuntu@20.04', 'focal'],
    ['ubuntu@22.04', 'jammy'],
    ['ubuntu@24.04', 'noble'],
    ['ubuntu@22.04/stable', 'jammy'],
  ])('%s is %s', (base, series) => {
    expect(baseToSeries(parseBase(base))).toBe(series);
  });

  it('maps a series back to its base', () => {
    expect(seriesToBase('jammy')).toEqual({ os: 'ubuntu', channel: '22.04' });
    expect(() => seriesToBase('nosuch')).toThrow('unknown version for series: "nosuch"');
  });

  it("refuses malformed and unknown bases in Juju's words", () => {
    expect(() => parseBase('jammy')).toThrow("expected base string to contain os and channel separated by '@'");
    expect(() => parseBase('ubuntu@')).toThrow("expected base string to contain os and channel separated by '@'");
    expect(() => baseToSeries(parseBase('ubuntu@21.99'))).toThrow('unknown series for version: "21.99"');
  });

  it('takes --series or --base, never both', () => {
    expect(requestedSeries({ base: 'ubuntu@22.04' })).toBe('jammy');
    expect(requestedSeries({ series: 'focal' })).toBe('focal');
    expect(requestedSeries({})).toBeUndefined();
    expect(() => requestedSeries({ series: 'focal', base: 'ubuntu@22.04' })).toThrow('--series and --base cannot be specified together');
  });

  it("words an unsupported base as Juju's unsupportedBaseError", () => {
    expect(unsupportedBaseMessage('focal', ['jammy', 'noble'])).toBe(
      'base "ubuntu@20.04" not supported by charm, the charm supported bases are: ubuntu@22.04, ubuntu@24.04',
    );
  });
});
