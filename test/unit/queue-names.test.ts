import { describe, expect, it } from 'vitest';
import { deadLetterQueueName, queueName } from '../../shared/messaging/queue-names.js';

const VALID = /^[A-Za-z0-9_-]{1,80}$/;

describe('machine queue names', () => {
  it('names a machine queue after its controller and machine', () => {
    expect(queueName('ctl-1', '7')).toBe('drover-ctl-1-m-7');
    expect(deadLetterQueueName('ctl-1')).toBe('drover-ctl-1-dlq');
  });

  it('escapes what SQS refuses, so container ids make valid, distinct names', () => {
    const names = ['0/lxd/1', '0-lxd-1', '0_lxd_1', '0_2flxd_2f1'].map((m) => queueName('c', m));
    for (const n of names) expect(n).toMatch(VALID);
    expect(new Set(names).size).toBe(names.length);
    expect(queueName('c', '0/lxd/1')).toBe('drover-c-m-0_2flxd_2f1');
  });

  it('stays within 80 characters for the longest controller id and deep containers', () => {
    const controller = 'x'.repeat(40);
    const deep = '0/lxd/1/kvm/2/lxd/3/lxd/4/lxd/5/lxd/6';
    const a = queueName(controller, deep);
    const b = queueName(controller, `${deep}7`);
    expect(a).toMatch(VALID);
    expect(a).not.toBe(b);
    expect(queueName(controller, deep)).toBe(a);
  });

  it('refuses a controller id SQS could not carry', () => {
    expect(() => queueName('a/b', '0')).toThrow('invalid controller id');
    expect(() => queueName('x'.repeat(41), '0')).toThrow('invalid controller id');
  });
});
