import { describe, expect, it } from 'vitest';
import { deadLetterQueueName, machineQueuePrefix, queueName } from '#shared/messaging/queue-names.js';

const VALID = /^[A-Za-z0-9_-]{1,80}$/;

describe('machine queue names', () => {
  it('names a machine queue after its controller and machine', () => {
    expect(queueName('ctl-1', 'default', '7')).toBe('drover-ctl-1-m-7');
    expect(deadLetterQueueName('ctl-1')).toBe('drover-ctl-1-dlq');
  });

  it('escapes what SQS refuses, so container ids make valid, distinct names', () => {
    const names = ['0/lxd/1', '0-lxd-1', '0_lxd_1', '0_2flxd_2f1'].map((m) => queueName('c', 'default', m));
    for (const n of names) expect(n).toMatch(VALID);
    expect(new Set(names).size).toBe(names.length);
    expect(queueName('c', 'default', '0/lxd/1')).toBe('drover-c-m-0_2flxd_2f1');
  });

  it('stays within 80 characters for the longest controller id and deep containers', () => {
    const controller = 'x'.repeat(40);
    const deep = '0/lxd/1/kvm/2/lxd/3/lxd/4/lxd/5/lxd/6';
    const a = queueName(controller, 'default', deep);
    const b = queueName(controller, 'default', `${deep}7`);
    expect(a).toMatch(VALID);
    expect(a).not.toBe(b);
    expect(queueName(controller, 'default', deep)).toBe(a);
  });

  it('refuses a controller id SQS could not carry', () => {
    expect(() => queueName('a/b', 'default', '0')).toThrow('invalid controller id');
    expect(() => queueName('x'.repeat(41), 'default', '0')).toThrow('invalid controller id');
  });

  it("refuses a controller id whose queues would start with another controller's machine-queue prefix", () => {
    // Controller `a`'s prefix `drover-a-m-` would take in every queue of `a-m` and `a-m-x`.
    for (const id of ['a-m', 'a-m-x', 'prod-m-2']) {
      expect(() => machineQueuePrefix(id), id).toThrow(`invalid controller id "${id}"`);
      expect(() => deadLetterQueueName(id), id).toThrow('would share its machine queues');
    }
    expect(() => machineQueuePrefix('a-m')).toThrow('with controller "a"');
    // Every other id keeps its names: no id's queue starts with another's prefix.
    const ids = ['a', 'a-b', 'am', 'a-mm', 'a-ma', 'm', 'm-a', 'team', 'a-1'];
    const namesOf = (id: string) => [queueName(id, 'default', '0'), queueName(id, 'model-key', '0'), deadLetterQueueName(id)];
    for (const id of ids)
      for (const other of ids.filter((o) => o !== id))
        for (const name of namesOf(other)) expect(name.startsWith(machineQueuePrefix(id)), `${id} / ${name}`).toBe(false);
  });
});

describe('machine queue names of many models', () => {
  const A = '5d2c4a8e-0d3b-4f7e-9c1a-2b3c4d5e6f70';
  const B = '9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4';

  it("keep the `default` model's names as they were, so existing controllers keep their queues", () => {
    expect(queueName('ctl-1', 'default', '7')).toBe('drover-ctl-1-m-7');
    expect(queueName('c', 'default', '0/lxd/1')).toBe('drover-c-m-0_2flxd_2f1');
  });

  it("differ for machine 0 of two models and of `default`, and stay under the controller's prefix", () => {
    const names = ['default', A, B].map((model) => queueName('ctl-1', model, '0'));
    expect(new Set(names).size).toBe(3);
    for (const n of names) {
      expect(n).toMatch(VALID);
      expect(n.startsWith(machineQueuePrefix('ctl-1'))).toBe(true);
    }
    // Another model's name still shows the machine id, after the model's digest.
    expect(queueName('ctl-1', A, '0')).toMatch(/^drover-ctl-1-m-_m[0-9a-f]{16}0$/);
    expect(queueName('ctl-1', A, '0')).toBe(queueName('ctl-1', A, '0'));
  });

  it('stay within 80 characters and distinct for the longest controller id, a uuid model and deep containers', () => {
    const controller = 'x'.repeat(40);
    const machines = ['0', '12345', '0/lxd/1', '0/lxd/1/kvm/2/lxd/3/lxd/4/lxd/5/lxd/6', '0/lxd/1/kvm/2/lxd/3/lxd/4/lxd/5/lxd/67'];
    const names = [A, B].flatMap((model) => machines.map((m) => queueName(controller, model, m)));
    for (const n of names) {
      expect(n.length).toBeLessThanOrEqual(80);
      expect(n).toMatch(VALID);
      expect(n.startsWith(machineQueuePrefix(controller))).toBe(true);
    }
    expect(new Set(names).size).toBe(names.length);
  });

  it('refuse a machine queue without a model', () => {
    expect(() => queueName('c', '', '0')).toThrow('needs a model');
  });
});
