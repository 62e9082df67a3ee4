import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { bootGateway, issueTokens, type PolicyFile, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/eventually.js';

const regexOnly = (pattern: string): PolicyFile => ({
  policies: [
    { name: 'guard', kind: 'regex-protection', builtin: [], patterns: [{ name: 'blocked-word', pattern }] },
    { name: 'one-per-second', kind: 'spike-arrest', rate: '1ps', identifier: 'header', header: 'x-caller' },
  ],
});

/**
 * Hot reload: the folder is watched (and SIGHUP reloads, see
 * test/cli/policies-cli.test.ts); a new set is validated whole and swapped in
 * at once, an invalid edit keeps the last good set, counters survive.
 */
describe('policy reload', () => {
  const clock = new ManualClock(Date.parse('2026-11-23T15:00:00.000Z'));
  let gw: TestGateway;
  let token: string;
  let callers = 0;
  // Each call is its own spike-arrest caller unless a test names one.
  const call = (query: string, headers: Record<string, string> = {}) =>
    fetch(`${gw.url}/business/score/v2/x?${query}`, { headers: { authorization: `Bearer ${token}`, 'x-caller': `caller-${callers++}`, ...headers } });

  beforeAll(async () => {
    gw = await bootGateway({
      clock,
      policies: { guard: regexOnly('forbidden') },
      config: (upstream) => ({ routes: [{ path: '/business/score/v2/', upstream, timeout: '2s', policies: ['guard', 'one-per-second'] }] }),
    });
    token = (await issueTokens(gw.url)).access_token;
  });
  afterAll(() => gw.close());

  it('picks up an edited file without a restart, with no request failing while it happens', async () => {
    expect((await call('w=forbidden')).status).toBe(401);
    let traffic = true;
    const statuses: number[] = [];
    const running = (async () => {
      // Bounded: at most 2,000 requests, or until the reload is seen.
      for (let i = 0; traffic && i < 2_000; i++) statuses.push((await call(`w=fine&i=${i}`, { 'x-caller': `c${i}` })).status);
    })();
    await gw.writePolicies('guard', regexOnly('verboten'));
    await eventually(async () => (await call('w=verboten')).status === 401);
    traffic = false;
    await running;
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect((await call('w=forbidden')).status).toBe(200);
    expect(gw.logs.some((line) => line.msg === 'policies reloaded')).toBe(true);
  });

  it('keeps the last good set when an edit is invalid, and logs the problem with file, line and key', async () => {
    const before = gw.logs.length;
    await writeFile(join(gw.dir, 'policies', 'guard.yaml'), 'policies:\n  - name: guard\n    kind: regex-protection\n    patterns:\n      - { name: bad, pattern: "(?=look)" }\n');
    const outcome = await gw.gateway.reloadPolicies('test');
    expect(outcome.ok).toBe(false);
    await eventually(async () => gw.logs.slice(before).some((line) => line.msg === 'policy reload rejected; the previous policies stay in force'));
    const rejected = gw.logs.slice(before).find((line) => line.msg === 'policy reload rejected; the previous policies stay in force');
    expect((rejected?.issues as string[])[0]).toMatch(/guard\.yaml:5: policies\[0\]\.patterns\[0\]\.pattern: .*/);
    expect((await call('w=verboten')).status).toBe(401);
    await gw.writePolicies('guard', regexOnly('verboten'));
  });

  it('refuses a set in which a route names a policy that no longer exists', async () => {
    await writeFile(join(gw.dir, 'policies', 'guard.yaml'), 'policies: []\n');
    const outcome = await gw.gateway.reloadPolicies('test');
    expect(outcome).toMatchObject({ ok: false, issues: [expect.stringMatching(/gateway\.yaml:\d+: routes\[0\]\.policies\[0\]: unknown policy "guard"/), expect.any(String)] });
    expect((await call('w=verboten')).status).toBe(401);
    await gw.writePolicies('guard', regexOnly('verboten'));
    expect((await gw.gateway.reloadPolicies('test')).ok).toBe(true);
  });

  it('keeps spike-arrest counters across a reload', async () => {
    clock.advance(1_000 - (clock.now() % 1_000));
    expect((await call('w=a', { 'x-caller': 'same' })).status).toBe(200);
    await gw.writePolicies('guard', regexOnly('something-else'));
    expect((await gw.gateway.reloadPolicies('test')).ok).toBe(true);
    expect((await call('w=a', { 'x-caller': 'same' })).status).toBe(401);
    clock.advance(1_000);
    expect((await call('w=a', { 'x-caller': 'same' })).status).toBe(200);
  });

  it('lets a request in flight finish under the set it started with', async () => {
    clock.advance(1_000);
    await gw.writePolicies('guard', regexOnly('old-word'));
    expect((await gw.gateway.reloadPolicies('test')).ok).toBe(true);
    // A JSON body that arrives in two parts: the policy is waiting for the second when the set changes.
    let finish!: () => void;
    const secondPart = new Promise<void>((resolve) => (finish = resolve));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('{"w":"'));
        await secondPart;
        controller.enqueue(new TextEncoder().encode('old-word"}'));
        controller.close();
      },
    });
    const received = new Promise((resolve) => gw.gateway.server.once('request', resolve));
    const inFlight = fetch(`${gw.url}/business/score/v2/x`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-caller': 'in-flight' },
      duplex: 'half',
    } as RequestInit);
    // The gateway's own handler runs first and takes the policy set before this listener sees the request.
    await received;
    await gw.writePolicies('guard', regexOnly('new-word'));
    expect((await gw.gateway.reloadPolicies('test')).ok).toBe(true);
    finish();
    expect((await inFlight).status).toBe(401);
    const post = (word: string, caller: string) =>
      fetch(`${gw.url}/business/score/v2/x`, {
        method: 'POST',
        body: JSON.stringify({ w: word }),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-caller': caller },
      });
    expect((await post('old-word', 'after-1')).status).toBe(200);
    expect((await post('new-word', 'after-2')).status).toBe(401);
  });
});

describe('policy folder replaced whole', () => {
  it('is watched again after a reload asked for from outside (SIGHUP)', async () => {
    const gw = await bootGateway({ policies: { guard: regexOnly('first') }, config: { policies: { defaults: ['guard'] } } });
    try {
      const { rm, mkdir } = await import('node:fs/promises');
      await rm(join(gw.dir, 'policies'), { recursive: true });
      await mkdir(join(gw.dir, 'policies'));
      await gw.writePolicies('guard', regexOnly('second'));
      expect((await gw.gateway.reloadPolicies('SIGHUP')).ok).toBe(true);
      expect((await fetch(`${gw.url}/oauth2/v1/keys?w=second`)).status).toBe(401);
      // From now on the new folder's edits are seen without another signal.
      await gw.writePolicies('guard', regexOnly('third'));
      await eventually(async () => (await fetch(`${gw.url}/oauth2/v1/keys?w=third`)).status === 401);
    } finally {
      await gw.close();
    }
  });
});
