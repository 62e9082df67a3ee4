import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory.js';
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
