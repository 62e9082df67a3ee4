import { describe, expect, it } from 'vitest';
import { keyspace } from '../../../src/store/redis/keyspace.js';

/** The slot-deciding part of a key: what is inside its first {...}. */
const hashTag = (key: string) => /\{([^}]*)\}/.exec(key)?.[1];

describe('the Redis keyspace of an environment', () => {
  const uat = keyspace('uat');

  it('puts every key and channel under tg:<environment>:', () => {
    const names = [uat.grant('g1'), uat.grantPattern, uat.revocations, uat.revocationChannel, uat.keyRing, uat.keyRingLock, uat.keyRingChannel, uat.rateLimit('spike')];
    for (const name of names) expect(name.startsWith('tg:uat:')).toBe(true);
    expect(names.some((name) => name.startsWith('tg:prod:'))).toBe(false);
    expect(new Set(names).size).toBe(names.length);
  });

  it('gives each grant its own hash tag (grants spread over a cluster), matched by the scan pattern', () => {
    expect(uat.grant('g1')).toBe('tg:uat:grant:{g1}');
    expect(hashTag(uat.grant('g1'))).not.toBe(hashTag(uat.grant('g2')));
    expect(uat.grantPattern).toBe('tg:uat:grant:{*}');
  });

  it('keeps the key ring and its lock in one slot, for the scripts that touch both', () => {
    expect(hashTag(uat.keyRing)).toBe(hashTag(uat.keyRingLock));
    expect(hashTag(uat.revocations)).toBe('revocations');
  });

  it('keeps environments apart', () => {
    expect(keyspace('prod').revocations).not.toBe(uat.revocations);
  });
});
