// nextSecretHook (shared/domain/secret-hooks.ts): which secret hook a unit runs next, in Juju's
// resolver's order, once each, and none while it is not installed, Dying or busy.
import { describe, expect, it } from 'vitest';
import { nextSecretHook, type SecretHookInput } from '#shared/domain/secret-hooks.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const PAST = '2025-06-01T11:00:00.000Z';
const FUTURE = '2025-06-01T13:00:00.000Z';
const A = 'secret:cu5ff0d8kgbs73a1opb0';
const B = 'secret:cu5ff0d8kgbs73a1opc0';

const base = (): SecretHookInput => ({
  installed: true,
  dying: false,
  busy: false,
  now: NOW,
  owned: [],
  consumed: [],
  done: { changed: {}, expired: [], removed: [], rotated: {} },
});

const owned = (extra: Partial<SecretHookInput['owned'][number]> = {}) => ({
  uri: A,
  label: 'creds',
  latestRevision: 2,
  revisions: [{ revision: 1 }, { revision: 2 }],
  trackedRevisions: [1, 2],
  ...extra,
});

describe('nextSecretHook', () => {
  const cases: [string, (i: SecretHookInput) => void, ReturnType<typeof nextSecretHook>][] = [
    ['nothing to do', () => undefined, undefined],
    [
      'an expired revision',
      (i) => i.owned.push(owned({ revisions: [{ revision: 1 }, { revision: 2, expireTime: PAST }] })),
      { kind: 'secret-expired', uri: A, label: 'creds', revision: 2 },
    ],
    ['a revision expiring later', (i) => i.owned.push(owned({ revisions: [{ revision: 2, expireTime: FUTURE }] })), undefined],
    [
      'an expiry already run',
      (i) => {
        i.owned.push(owned({ revisions: [{ revision: 2, expireTime: PAST }] }));
        i.done.expired.push(`${A}/2`);
      },
      undefined,
    ],
    [
      'a rotation due, with the time and revision it runs for',
      (i) => i.owned.push(owned({ nextRotateTime: PAST })),
      { kind: 'secret-rotate', uri: A, label: 'creds', rotateTime: PAST, originalRevision: 2 },
    ],
    [
      'a rotation already run for that time',
      (i) => {
        i.owned.push(owned({ nextRotateTime: PAST }));
        i.done.rotated[A] = PAST;
      },
      undefined,
    ],
    [
      'expiry before rotation, as Juju',
      (i) => i.owned.push(owned({ nextRotateTime: PAST, revisions: [{ revision: 2, expireTime: PAST }] })),
      { kind: 'secret-expired', uri: A, label: 'creds', revision: 2 },
    ],
    [
      'a consumed secret with a newer revision',
      (i) => i.consumed.push({ uri: B, latestRevision: 3, trackedRevision: 2 }),
      { kind: 'secret-changed', uri: B, revision: 3 },
    ],
    [
      'secret-changed once per revision',
      (i) => {
        i.consumed.push({ uri: B, latestRevision: 3, trackedRevision: 2 });
        i.done.changed[B] = 3;
      },
      undefined,
    ],
    [
      'secret-changed once per revision, as the consumer record keeps it',
      (i) => i.consumed.push({ uri: B, latestRevision: 3, trackedRevision: 2, seenRevision: 3 }),
      undefined,
    ],
    ['a consumer up to date', (i) => i.consumed.push({ uri: B, latestRevision: 3, trackedRevision: 3 }), undefined],
    [
      'a revision no one tracks',
      (i) => i.owned.push(owned({ trackedRevisions: [2] })),
      { kind: 'secret-remove', uri: A, label: 'creds', revision: 1 },
    ],
    [
      'the latest revision is never removable',
      (i) => i.owned.push(owned({ trackedRevisions: [], revisions: [{ revision: 2 }] })),
      undefined,
    ],
    [
      'rotation before changed before remove',
      (i) => {
        i.owned.push(owned({ nextRotateTime: PAST, trackedRevisions: [2] }));
        i.consumed.push({ uri: B, latestRevision: 3, trackedRevision: 2 });
      },
      { kind: 'secret-rotate', uri: A, label: 'creds', rotateTime: PAST, originalRevision: 2 },
    ],
    ['not while busy', (i) => ((i.busy = true), i.owned.push(owned({ nextRotateTime: PAST }))), undefined],
    ['not while Dying', (i) => ((i.dying = true), i.owned.push(owned({ nextRotateTime: PAST }))), undefined],
    ['not before install', (i) => ((i.installed = false), i.consumed.push({ uri: B, latestRevision: 3, trackedRevision: 2 })), undefined],
  ];
  it.each(cases)('%s', (_name, arrange, expected) => {
    const input = base();
    arrange(input);
    expect(nextSecretHook(input)).toEqual(expected);
  });
});
