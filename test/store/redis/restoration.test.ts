import { describe, expect, it } from 'vitest';
import { Restoration, type KeyspaceState } from '../../../src/store/redis/restoration.js';

/** When an instance trusts what the store holds, writes it back, or waits for a peer to (src/store/redis/restoration.ts). */

const WAIT_MS = 3_000;
const state = (overrides: Partial<KeyspaceState> = {}): KeyspaceState => ({
  listKept: false,
  listKeptSince: undefined,
  peersHoldingList: 0,
  peersHoldingRing: 0,
  ...overrides,
});
const kept = (since: number) => state({ listKept: true, listKeptSince: since });

describe('an instance that holds the whole revocation list', () => {
  it('loads while the marker is there, and writes the list back the moment it is gone', () => {
    const restoration = new Restoration(WAIT_MS);
    expect(restoration.decide(kept(Date.now()), Date.now())).toBe('load');
    restoration.loaded();
    expect(restoration.decide(kept(Date.now()), Date.now())).toBe('load');
    expect(restoration.decide(state({ peersHoldingList: 2 }), Date.now())).toBe('restore');
    expect(restoration.decide(state(), Date.now())).toBe('restore');
  });
});

describe('an instance that is starting', () => {
  it('adopts an empty store when nothing says a list was lost: a new environment', () => {
    expect(new Restoration(WAIT_MS).decide(state(), Date.now())).toBe('adopt');
  });

  it('waits for a live peer that holds the list to write it back, at most the wait', () => {
    const restoration = new Restoration(WAIT_MS);
    const now = Date.now();
    expect(restoration.decide(state({ peersHoldingList: 1 }), now)).toBe('wait');
    expect(restoration.waiting).toBe(true);
    expect(restoration.decide(state({ peersHoldingList: 1 }), now + WAIT_MS - 1)).toBe('wait');
    expect(restoration.decide(kept(now + 100), now + 200)).toBe('load');
    restoration.loaded();
    expect(restoration.waiting).toBe(false);
  });

  it('keeps waiting past the wait while a live peer holds the list: it will write it back, and an empty list would let revoked tokens through', () => {
    const restoration = new Restoration(WAIT_MS);
    const now = Date.now();
    restoration.decide(state({ peersHoldingList: 1 }), now);
    expect(restoration.decide(state({ peersHoldingList: 1 }), now + WAIT_MS)).toBe('wait');
    expect(restoration.decide(state({ peersHoldingList: 1 }), now + 10 * WAIT_MS)).toBe('wait');
    expect(restoration.waiting).toBe(true);
  });

  it('adopts what is there once the wait is over and no live peer holds a list: the peers are gone', () => {
    const restoration = new Restoration(WAIT_MS);
    // Started during the outage: without a peer it still waits, for the wait.
    restoration.noteOutage();
    const now = Date.now();
    restoration.decide(state({ peersHoldingList: 1 }), now);
    expect(restoration.decide(state({ peersHoldingList: 0 }), now + WAIT_MS - 1)).toBe('wait');
    expect(restoration.decide(state({ peersHoldingList: 0 }), now + WAIT_MS)).toBe('adopt');
  });

  it('waits after an outage seen while starting even with no peer heard from yet: they may still be reconnecting', () => {
    const restoration = new Restoration(WAIT_MS);
    restoration.noteOutage();
    expect(restoration.decide(state(), Date.now())).toBe('wait');
  });

  it('does not count an outage seen after it held the list', () => {
    const restoration = new Restoration(WAIT_MS);
    restoration.decide(state(), Date.now());
    restoration.loaded();
    restoration.noteOutage();
    expect(restoration.decide(kept(Date.now()), Date.now())).toBe('load');
  });
});

describe('a starting instance and the key ring', () => {
  it('creates a ring in a new environment, even beside instances started with it', () => {
    const restoration = new Restoration(WAIT_MS);
    // Another instance started a moment later marked the list whole: not older than this one.
    expect(restoration.mayCreateRing(kept(Date.now() + 5), Date.now())).toBe(true);
  });

  it('waits when the environment existed before it (the marker is older) or a live peer holds a ring, at most the wait', () => {
    const now = Date.now();
    const older = new Restoration(WAIT_MS);
    expect(older.mayCreateRing(kept(now - 60_000), now)).toBe(false);
    expect(older.mayCreateRing(kept(now - 60_000), now + WAIT_MS)).toBe(true);
    const peer = new Restoration(WAIT_MS);
    expect(peer.mayCreateRing(state({ peersHoldingRing: 1 }), now)).toBe(false);
  });
});
