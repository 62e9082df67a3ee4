import { ReplyError } from 'ioredis';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { Availability, DeadlineExceeded, isOutage, withDeadline } from '../../../src/store/redis/availability.js';
import { eventually } from '../../helpers/eventually.js';

/**
 * One deadline per store call, what counts as an outage, and the latch that
 * refuses every call at once until the probe finds every node back
 * (src/store/redis/availability.ts; docs/several-instances.md, "Faults").
 * The probe is the store's (probe.ts, tested against real servers); here it
 * is a function the test answers.
 */

describe('one deadline per store call', () => {
  it('passes the answer through when it comes in time', async () => {
    await expect(withDeadline(Promise.resolve('answer'), 30)).resolves.toBe('answer');
  });

  it("passes the call's own failure through, not a deadline", async () => {
    const failure = new ReplyError('ERR Error running script');
    await expect(withDeadline(Promise.reject(failure), 30)).rejects.toBe(failure);
  });

  it('rejects with DeadlineExceeded at the deadline when no answer comes, saying how long it waited', async () => {
    const started = Date.now();
    const failure = await withDeadline(new Promise(() => undefined), 50).catch((error: unknown) => error);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(failure).toBeInstanceOf(DeadlineExceeded);
    expect(failure).toMatchObject({ name: 'DeadlineExceeded', ms: 50, message: 'redis command timed out after 50 ms' });
  });

  it('ignores an answer that comes after the deadline: the caller has stopped waiting', async () => {
    const late = new Promise((resolve) => setTimeout(() => resolve('late'), 60));
    await expect(withDeadline(late, 20)).rejects.toBeInstanceOf(DeadlineExceeded);
    await late;
  });
});

describe('what counts as an outage', () => {
  it.each([
    ['a deadline', new DeadlineExceeded(10), true],
    ['a closed connection', new Error('Connection is closed.'), true],
    ['an unwritable connection', new Error("Stream isn't writeable and enableOfflineQueue options is false"), true],
    ['too many cluster redirections', new Error('Too many Cluster redirections. Last error: Error: Command timed out'), true],
    ['CLUSTERDOWN', new ReplyError('CLUSTERDOWN The cluster is down'), true],
    ['TRYAGAIN', new ReplyError('TRYAGAIN Multiple keys request during rehashing of slot'), true],
    ['LOADING', new ReplyError('LOADING Redis is loading the dataset in memory'), true],
    ['MASTERDOWN', new ReplyError('MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to no'), true],
    ['READONLY (a master demoted to replica)', new ReplyError("READONLY You can't write against a read only replica."), true],
    ['NOREPLICAS', new ReplyError('NOREPLICAS Not enough good replicas to write.'), true],
    ['BUSY (a script running too long)', new ReplyError('BUSY Redis is busy running a script.'), true],
    ['a script error', new ReplyError('ERR Error running script'), false],
    ['a wrong type', new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value'), false],
    ['BUSYKEY, which is not BUSY', new ReplyError('BUSYKEY Target key name already exists.'), false],
    ['a refused password', new ReplyError('WRONGPASS invalid username-password pair or user is disabled.'), false],
    ['a programming error (TypeError)', new TypeError('x is not a function'), false],
    ['a programming error (SyntaxError)', new SyntaxError('Unexpected token'), false],
    ['a programming error (RangeError)', new RangeError('Invalid array length'), false],
  ])('%s: %s', (_name, error, outage) => {
    expect(isOutage(error)).toBe(outage);
  });
});

/** An outage the test ends: the probe fails until `back` is set. */
function outage(probeIntervalMs = 10) {
  const state = { back: false, probes: 0, running: 0, mostAtOnce: 0, restored: [] as string[] };
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const availability = new Availability({
    probe: async () => {
      state.probes++;
      state.running++;
      state.mostAtOnce = Math.max(state.mostAtOnce, state.running);
      await new Promise((resolve) => setTimeout(resolve, 2));
      state.running--;
      if (!state.back) throw new Error('connect ECONNREFUSED');
    },
    probeIntervalMs,
    onRestored: (lostFor) => void state.restored.push(lostFor),
    logger,
  });
  return { availability, state, lines };
}

describe('the availability latch', () => {
  it('is open, with no reason, until a call finds redis out of reach', () => {
    const { availability, state } = outage();
    expect(availability.open).toBe(true);
    expect(availability.reason).toBeUndefined();
    expect(state.probes).toBe(0);
  });

  it('closes on the first loss with its reason, and keeps that first reason through the losses after it', async () => {
    const { availability, state } = outage();
    availability.lost('redis command timed out after 1000 ms');
    availability.lost('Connection is closed.');
    expect(availability.open).toBe(false);
    expect(availability.reason).toBe('redis command timed out after 1000 ms');
    availability.close();
    await eventually(() => state.running === 0, { what: 'the last probe to end' });
  });

  it('probes every probeIntervalMs while closed, one probe at a time however many calls fail', async () => {
    const { availability, state } = outage(20);
    const started = Date.now();
    for (let i = 0; i < 10; i++) availability.lost(`call ${i} failed`);
    await eventually(() => state.probes >= 5, { what: 'five probes' });
    // Four pauses of the interval between five probes, each probe a little work.
    expect(Date.now() - started).toBeGreaterThanOrEqual(4 * 20);
    expect(state.mostAtOnce).toBe(1);
    expect(availability.open).toBe(false);
    availability.close();
  });

  it('opens once the probe finds every node back, and reconciles once, saying how long redis was lost', async () => {
    const { availability, state, lines } = outage();
    availability.lost('cluster master 127.0.0.1:7000: connect ECONNREFUSED');
    await eventually(() => state.probes >= 2, { what: 'a failed probe or two' });
    state.back = true;
    await eventually(() => availability.open, { what: 'the latch to open' });
    expect(availability.reason).toBeUndefined();
    expect(state.restored).toHaveLength(1);
    expect(state.restored[0]).toMatch(/^\d+ ms$/);
    const probes = state.probes;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(state.probes).toBe(probes);
    expect(lines.map(({ level, msg, reason, lostFor }) => ({ level, msg, reason, lostFor }))).toEqual([
      { level: 40, msg: 'redis out of reach: writes answer 503 at once until every node answers again', reason: 'cluster master 127.0.0.1:7000: connect ECONNREFUSED', lostFor: undefined },
      { level: 30, msg: 'redis answers again', reason: undefined, lostFor: state.restored[0] },
    ]);
  });

  it('closes again, with the new reason, on a loss after it opened', async () => {
    const { availability, state } = outage();
    state.back = true;
    availability.lost('first');
    await eventually(() => availability.open, { what: 'the first outage to end' });
    state.back = false;
    availability.lost('second');
    expect(availability.reason).toBe('second');
    state.back = true;
    await eventually(() => state.restored.length === 2, { what: 'the second outage to end' });
  });

  it('stops probing once closed, and ignores losses after that: the store is shutting down', async () => {
    const { availability, state } = outage();
    availability.lost('first');
    availability.close();
    await eventually(() => state.running === 0, { what: 'the last probe to end' });
    const probes = state.probes;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(state.probes).toBe(probes);
    const closedBefore = outage();
    closedBefore.availability.close();
    closedBefore.availability.lost('after close');
    expect(closedBefore.availability.open).toBe(true);
    expect(closedBefore.state.probes).toBe(0);
  });
});
