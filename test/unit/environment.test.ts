// How the Lambda functions read their environment (functions/environment.ts).
import { describe, expect, it } from 'vitest';
import { environmentOf } from '../../functions/environment.js';

describe('environmentOf', () => {
  it('names a missing or empty required variable, the function, and what the variable holds', () => {
    for (const env of [{}, { TABLE_NAME: '' }])
      expect(() => environmentOf('watchdog', env).required('TABLE_NAME')).toThrow(
        'the watchdog needs TABLE_NAME in its environment (the state table)',
      );
    expect(environmentOf('watchdog', { TABLE_NAME: 't' }).required('TABLE_NAME')).toBe('t');
  });

  it('reads seconds with a default, and refuses what is not a positive number', () => {
    expect(environmentOf('api function', {}).seconds('STUCK_AFTER_SECONDS', 600)).toBe(600);
    expect(environmentOf('api function', { STUCK_AFTER_SECONDS: '90' }).seconds('STUCK_AFTER_SECONDS', 600)).toBe(90);
    for (const bad of ['0', '-5', 'ten'])
      expect(() => environmentOf('api function', { STUCK_AFTER_SECONDS: bad }).seconds('STUCK_AFTER_SECONDS', 600)).toThrow(
        `the api function needs STUCK_AFTER_SECONDS to be a positive number of seconds, not "${bad}"`,
      );
  });

  it('reads counts and comma-separated lists', () => {
    const env = environmentOf('provisioner', { PROVISIONER_START_ATTEMPTS: '3', SUBNET_IDS: ' a, b,,c ' });
    expect(env.count('PROVISIONER_START_ATTEMPTS')).toBe(3);
    expect(env.count('PROVISIONER_RETRY_DELAY_MS')).toBeUndefined();
    expect(env.list('SUBNET_IDS')).toEqual(['a', 'b', 'c']);
    expect(env.list('SECURITY_GROUP_IDS')).toEqual([]);
    expect(() => environmentOf('provisioner', { PROVISIONER_START_ATTEMPTS: '1.5' }).count('PROVISIONER_START_ATTEMPTS')).toThrow(
      /PROVISIONER_START_ATTEMPTS to be a whole number of at least 0, not "1.5"/,
    );
  });
});
