import { describe, expect, it } from 'vitest';
import { createShownOnce, SHOWN_ONCE_TTL_MS } from './shown-once.js';

const ann = { sessionHash: 'session-a', accountId: 'account-a' };
const annElsewhere = { sessionHash: 'session-b', accountId: 'account-a' };
const bob = { sessionHash: 'session-c', accountId: 'account-c' };

describe('shown-once holder', () => {
  it('gives a secret once, to its session and slot only', () => {
    const held = createShownOnce(() => 0);
    held.hold(ann, 'key:1', 'secret-1');
    held.hold(ann, 'key:2', 'secret-2');
    expect(held.take(bob.sessionHash, 'key:1')).toBeNull();
    expect(held.take(annElsewhere.sessionHash, 'key:1')).toBeNull();
    expect(held.take(ann.sessionHash, 'feed:1')).toBeNull();
    expect(held.take(ann.sessionHash, 'key:2')).toBe('secret-2');
    expect(held.take(ann.sessionHash, 'key:1')).toBe('secret-1');
    expect(held.take(ann.sessionHash, 'key:1')).toBeNull();
    expect(held.size()).toBe(0);
  });

  it('lets a secret go after its time, and the oldest beyond the cap', () => {
    let now = 1_000;
    const held = createShownOnce(() => now, 3);
    held.hold(ann, 'key:old', 'old');
    now += SHOWN_ONCE_TTL_MS - 1;
    held.hold(ann, 'key:new', 'new');
    now += 1;
    expect(held.take(ann.sessionHash, 'key:old')).toBeNull();
    expect(held.take(ann.sessionHash, 'key:new')).toBe('new');
    for (const slot of ['a', 'b', 'c', 'd']) held.hold(ann, slot, slot);
    expect(held.size()).toBe(3);
    expect(held.take(ann.sessionHash, 'a')).toBeNull();
    expect(held.take(ann.sessionHash, 'd')).toBe('d');
  });

  it('forgets a session, or every session of an account', () => {
    const held = createShownOnce(() => 0);
    held.hold(ann, 'key:1', 'a1');
    held.hold(annElsewhere, 'key:2', 'a2');
    held.hold(bob, 'key:3', 'b3');
    held.forgetSession(ann.sessionHash);
    expect(held.take(ann.sessionHash, 'key:1')).toBeNull();
    expect(held.size()).toBe(2);
    held.hold(ann, 'key:1', 'a1');
    held.forgetAccount('account-a');
    expect(held.size()).toBe(1);
    expect(held.take(bob.sessionHash, 'key:3')).toBe('b3');
  });
});
