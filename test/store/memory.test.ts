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
});
