import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { confirmations, Heartbeat } from '../../src/keys/acknowledgements.js';
import { HEARTBEAT_INTERVAL_MS, INSTANCE_HORIZON_MS } from '../../src/store/instances.js';
import type { InstanceRecord, KeyRingStorage } from '../../src/store/types.js';

/**
 * Heartbeats and the acknowledgements a rotation waits for
 * (src/keys/acknowledgements.ts; docs/several-instances.md, "A rotation
 * answers once every live instance has installed it"). The heartbeats are
 * kept by the store; here they are a table the test writes, behind the
 * KeyRingStorage interface (RedisKeyRingStorage's own tests cover Redis).
 */

/** The heartbeats as a store would hold them: what each instance last said, and when. */
class Heartbeats implements KeyRingStorage {
  readonly instanceId = 'this/1/aaaaaa';
  readonly records = new Map<string, { seenAt: number; ringVersion: number }>();
  readonly asked: Array<{ horizonMs: number }> = [];
  readonly acknowledged: Array<{ ringVersion: number; now: number }> = [];
  departed = 0;
  /** The stored ring's version, answered to each heartbeat; an Error: the store is out of reach. */
  storedVersion: number | Error = 0;
  /** Holds every acknowledgement until the test settles it (a slow store). */
  stalled: Array<() => void> | undefined;
  departFails = false;

  /** An instance last heard from `age` ms ago with ring `ringVersion`. */
  heard(id: string, age: number, ringVersion: number): this {
    this.records.set(id, { seenAt: Date.now() - age, ringVersion });
    return this;
  }

  async instances(now: number, horizonMs: number): Promise<InstanceRecord[]> {
    this.asked.push({ horizonMs });
    return [...this.records].filter(([, record]) => now - record.seenAt <= horizonMs).map(([id, record]) => ({ id, ...record }));
  }

  async acknowledge(ringVersion: number, now: number): Promise<number> {
    this.acknowledged.push({ ringVersion, now });
    if (this.stalled) await new Promise<void>((resolve) => this.stalled!.push(resolve));
    if (this.storedVersion instanceof Error) throw this.storedVersion;
    return this.storedVersion;
  }

  async depart(): Promise<void> {
    this.departed++;
    if (this.departFails) throw new Error('Connection is closed.');
  }

  load = unused;
  save = unused;
  tryLock = unused;
  onChange = unused;
  mayCreateRing = unused;
}

function unused(): never {
  throw new Error('not used by acknowledgements');
}

const LIVE = 500;
const SILENT = 5_000;
/** Long enough that "answered at once" cannot be the wait running out. */
const LONG_WAIT_MS = 2_000;

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = Date.now();
  const result = await work();
  return { result, ms: Date.now() - started };
}

describe('confirmations: who has installed a ring version', () => {
  it.each([
    {
      rule: 'every live instance has it: all confirmed, in order of id',
      heard: [['c', LIVE, 4], ['a', LIVE, 4], ['b', LIVE, 4]] as const,
      confirmed: ['a', 'b', 'c'],
      unconfirmed: [],
    },
    {
      rule: 'an instance on a later version has it too',
      heard: [['a', LIVE, 4], ['b', LIVE, 5]] as const,
      confirmed: ['a', 'b'],
      unconfirmed: [],
    },
    {
      rule: 'an instance not heard from within the live window is not waited for, and is named, not live',
      heard: [['a', LIVE, 4], ['gone', SILENT, 3]] as const,
      confirmed: ['a'],
      unconfirmed: [{ instance: 'gone', live: false, ringVersion: 3 }],
    },
    {
      rule: 'an instance out of reach that had the version already is in neither list: it did not confirm, and has nothing left to install',
      heard: [['a', LIVE, 4], ['crashed', SILENT, 4]] as const,
      confirmed: ['a'],
      unconfirmed: [],
    },
    {
      rule: 'no instance heard from at all: nothing to wait for',
      heard: [] as const,
      confirmed: [],
      unconfirmed: [],
    },
  ])('$rule', async ({ heard, confirmed, unconfirmed }) => {
    const storage = new Heartbeats();
    for (const [id, age, version] of heard) storage.heard(id, age, version);
    const { result, ms } = await timed(() => confirmations(storage, 4, LONG_WAIT_MS));
    expect(ms).toBeLessThan(LONG_WAIT_MS / 2);
    expect(result.confirmed).toEqual(confirmed);
    expect(result.unconfirmed).toEqual(unconfirmed.map((entry) => ({ ...entry, lastSeen: storage.records.get(entry.instance)!.seenAt })));
  });

  it('waits for a live instance that is behind, and confirms it once it acknowledges', async () => {
    const storage = new Heartbeats().heard('a', LIVE, 4).heard('late', LIVE, 3);
    setTimeout(() => storage.heard('late', 0, 4), 150);
    const { result, ms } = await timed(() => confirmations(storage, 4, LONG_WAIT_MS));
    expect(result).toEqual({ confirmed: ['a', 'late'], unconfirmed: [] });
    expect(ms).toBeGreaterThanOrEqual(140);
    expect(ms).toBeLessThan(LONG_WAIT_MS / 2);
  });

  it('waits at most the wait for a live instance that never acknowledges, then names it as live', async () => {
    const storage = new Heartbeats().heard('a', LIVE, 4).heard('frozen', LIVE, 3).heard('b', SILENT, 2);
    const { result, ms } = await timed(() => confirmations(storage, 4, 300));
    expect(ms).toBeGreaterThanOrEqual(300);
    expect(ms).toBeLessThan(1_500);
    expect(result).toEqual({
      confirmed: ['a'],
      unconfirmed: [
        { instance: 'b', lastSeen: storage.records.get('b')!.seenAt, live: false, ringVersion: 2 },
        { instance: 'frozen', lastSeen: storage.records.get('frozen')!.seenAt, live: true, ringVersion: 3 },
      ],
    });
  });

  it('asks the store only for instances heard from within the 10-minute horizon: older ones are forgotten, never reported', async () => {
    const storage = new Heartbeats().heard('a', LIVE, 4).heard('long gone', INSTANCE_HORIZON_MS + 60_000, 1);
    expect(await confirmations(storage, 4, 0)).toEqual({ confirmed: ['a'], unconfirmed: [] });
    expect(storage.asked).toEqual([{ horizonMs: INSTANCE_HORIZON_MS }]);
  });
});

const silent = pino({ level: 'silent' });

function heartbeat(storage: Heartbeats, installed: number, logger = silent) {
  const behind = { count: 0 };
  const beat = new Heartbeat({ storage, logger, installedVersion: () => installed, onBehind: () => behind.count++ });
  return { beat, behind };
}

describe('Heartbeat: this instance says it is alive and which ring it has', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    ['none installed, none stored: sync (creates the first ring)', 0, 0, true],
    ['none installed, one stored: sync', 0, 3, true],
    ['the stored version installed: nothing to do', 3, 3, false],
    ['a later version stored (a change notice missed): sync', 3, 4, true],
    ['another version stored (the store came back with a ring written since): sync', 4, 1, true],
    ['the store out of reach: nothing to catch up with until it answers', 3, new Error('Connection is closed.'), false],
  ])('%s', async (_rule, installed, stored, catchesUp) => {
    const storage = new Heartbeats();
    storage.storedVersion = stored;
    const { beat, behind } = heartbeat(storage, installed);
    const before = Date.now();
    await beat.beat();
    expect(storage.acknowledged).toHaveLength(1);
    expect(storage.acknowledged[0]!.ringVersion).toBe(installed);
    expect(storage.acknowledged[0]!.now).toBeGreaterThanOrEqual(before);
    expect(storage.acknowledged[0]!.now).toBeLessThanOrEqual(Date.now());
    expect(behind.count).toBe(catchesUp ? 1 : 0);
  });

  it('beats every second once started', async () => {
    vi.useFakeTimers();
    const storage = new Heartbeats();
    const { beat } = heartbeat(storage, 1);
    beat.start();
    await vi.advanceTimersByTimeAsync(HEARTBEAT_INTERVAL_MS - 1);
    expect(storage.acknowledged).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(storage.acknowledged).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2 * HEARTBEAT_INTERVAL_MS);
    expect(storage.acknowledged).toHaveLength(3);
    await beat.stop();
  });

  it('never beats again while a beat waits on a slow store: beats do not pile up', async () => {
    vi.useFakeTimers();
    const storage = new Heartbeats();
    storage.stalled = [];
    const { beat } = heartbeat(storage, 1);
    beat.start();
    await vi.advanceTimersByTimeAsync(10 * HEARTBEAT_INTERVAL_MS);
    expect(storage.acknowledged).toHaveLength(1);
    for (const settle of storage.stalled.splice(0)) settle();
    storage.stalled = undefined;
    await vi.advanceTimersByTimeAsync(HEARTBEAT_INTERVAL_MS);
    expect(storage.acknowledged).toHaveLength(2);
    await beat.stop();
  });

  it('stops beating and removes its record when stopped: a rotation must not wait for an instance that left', async () => {
    vi.useFakeTimers();
    const storage = new Heartbeats();
    const { beat } = heartbeat(storage, 1);
    beat.start();
    await vi.advanceTimersByTimeAsync(HEARTBEAT_INTERVAL_MS);
    await beat.stop();
    expect(storage.departed).toBe(1);
    await vi.advanceTimersByTimeAsync(10 * HEARTBEAT_INTERVAL_MS);
    expect(storage.acknowledged).toHaveLength(1);
  });

  it('writes no heartbeat once stopped, even when asked (an install after stop): its record stays removed', async () => {
    const storage = new Heartbeats();
    const { beat, behind } = heartbeat(storage, 0);
    await beat.stop();
    await beat.beat();
    expect(storage.acknowledged).toEqual([]);
    expect(behind.count).toBe(0);
  });

  it('stops quietly when the store cannot be told: the record is forgotten past the horizon anyway', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const storage = new Heartbeats();
    storage.departFails = true;
    await expect(heartbeat(storage, 1, logger).beat.stop()).resolves.toBeUndefined();
    expect(lines).toMatchObject([{ level: 20, msg: 'could not remove this instance from the heartbeats', err: { message: 'Connection is closed.' } }]);
  });
});
