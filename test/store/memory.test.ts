import { describe, expect, it } from 'vitest';
import { MemoryRevocations, MemoryStore, MemoryWindowCounter } from '../../src/store/memory.js';
import { ManualClock } from '../helpers/clock.js';
import { storeContract } from './contract.js';

storeContract('memory', async (clock) => new MemoryStore(clock), () => new ManualClock());

describe('memory store', () => {
  it('sweeps expired records so memory does not grow with old tokens', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    await store.revocations.add({ kind: 'token', id: 'a', expiresAt: clock.now() + 10 });
    await store.revocations.add({ kind: 'token', id: 'b', expiresAt: clock.now() + 5_000 });
    clock.advance(1_000); // expiries are kept in whole seconds, rounded up
    store.sweep();
    expect(store.revocations.size).toBe(1);
    await store.close();
  });

  it('sweeps by itself once a minute of its clock, and stops when closed', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    await store.revocations.add({ kind: 'token', id: 'short', expiresAt: clock.now() + 10 });
    clock.advance(59_999);
    expect(store.revocations.size).toBe(1); // expired, but not swept yet
    clock.advance(1);
    expect(store.revocations.size).toBe(0);
    await store.revocations.add({ kind: 'token', id: 'again', expiresAt: clock.now() + 10 });
    clock.advance(60_000);
    expect(store.revocations.size).toBe(0);
    await store.close();
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('MemoryRevocations (the in-memory list and every Redis mirror)', () => {
  it('keeps each kind apart, under the names Redis uses', async () => {
    const clock = new ManualClock();
    const list = new MemoryRevocations(clock);
    await list.add({ kind: 'token', id: 'same-id', expiresAt: clock.now() + 10_000 });
    list.remember('grant:g1', clock.now() + 20_000);
    expect(list.isRevoked('token', 'same-id')).toBe(true);
    expect(list.isRevoked('grant', 'same-id')).toBe(false);
    expect(list.isRevoked('grant', 'g1')).toBe(true);
    expect([...list.live()].map(([member]) => member).sort()).toEqual(['grant:g1', 'token:same-id']);
    expect(list.size).toBe(2);
  });

  it('ignores a member of no known kind instead of misfiling it', () => {
    const list = new MemoryRevocations(new ManualClock());
    list.remember('session:x', Date.now() + 10_000);
    list.remember('no-colon', Date.now() + 10_000);
    expect(list.size).toBe(0);
  });

  it('rounds expiries up to the second: a revocation may outlast its exact instant, never end before it', async () => {
    const clock = new ManualClock(Date.parse('2026-11-21T12:00:00.000Z'));
    const list = new MemoryRevocations(clock);
    await list.add({ kind: 'token', id: 'j', expiresAt: clock.now() + 1_001 });
    clock.advance(1_001);
    expect(list.isRevoked('token', 'j')).toBe(true);
    clock.advance(998);
    expect(list.isRevoked('token', 'j')).toBe(true);
    clock.advance(1);
    expect(list.isRevoked('token', 'j')).toBe(false);
    expect([...list.live()]).toEqual([]);
  });

  it('never shortens a revocation, and sweeps only what expired', async () => {
    const clock = new ManualClock();
    const list = new MemoryRevocations(clock);
    list.remember('token:long', clock.now() + 60_000);
    list.remember('token:long', clock.now() + 5_000);
    list.remember('token:short', clock.now() + 5_000);
    clock.advance(10_000);
    list.sweep();
    expect(list.isRevoked('token', 'long')).toBe(true);
    expect(list.size).toBe(1);
  });
});

describe('MemoryWindowCounter (spike arrest on the memory store)', () => {
  it('answers at once, and keeps only the window last asked about', () => {
    const counter = new MemoryWindowCounter(1);
    expect([counter.admit('a', '10.1'), counter.admit('a', '10.1'), counter.admit('b', '10.1')]).toEqual([true, false, true]);
    expect(counter.admit('a', '10.2')).toBe(true);
    // Back to the earlier window (a clock stepped back): it was forgotten, so it starts afresh.
    expect(counter.admit('a', '10.1')).toBe(true);
    expect(counter.admit('a', '10.1')).toBe(false);
  });
});
