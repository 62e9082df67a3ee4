import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwksMaxAgeSeconds } from '../../src/keys/publication.js';
import { adminCall } from '../helpers/admin.js';
import { callProtected, issueTokens, refreshGrant, type TokenResponse } from '../helpers/gateway.js';
import { GatewayProcess } from '../helpers/gateway-process.js';
import { RedisServer } from '../helpers/redis-server.js';
import { uniqueEnvironment } from '../helpers/redis-store.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

/**
 * Three real gateway processes on one real redis-server, with steady
 * traffic from the test through all three while keys are rotated again and
 * again (by the admin API on each instance in turn, by the schedule, with
 * drop_previous and in an emergency): no valid token is ever refused, no
 * dropped key is accepted or signs once the drop has answered, and every
 * key a token carries was in every instance's JWKS first, a whole JWKS
 * cache lifetime earlier unless it was the emergency's.
 */

const ROTATION_INTERVAL_MS = 4_000;
const MAX_AGE_MS = jwksMaxAgeSeconds(ROTATION_INTERVAL_MS) * 1000;
/** How often each instance's JWKS is read: first sightings are late by at most this and a request. */
const JWKS_POLL_MS = 25;

let redis: RedisServer;
let upstream: TestUpstream;
const gateways: GatewayProcess[] = [];
beforeAll(async () => {
  [redis, upstream] = await Promise.all([RedisServer.start(), startUpstream()]);
});
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.stop()));
  for (const gateway of gateways) expect(gateway.failures()).toEqual([]);
  await Promise.all([redis?.dispose(), upstream?.close()]);
});

interface Issued {
  readonly token: TokenResponse;
  readonly kid: string;
  readonly at: number;
}

interface Refusal {
  readonly kid: string;
  readonly status: number;
  readonly instance: number;
  readonly at: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One read of an instance's JWKS: when it was sent, when its answer came, the kids in it. */
interface JwksRead {
  readonly sentAt: number;
  readonly receivedAt: number;
  readonly kids: ReadonlySet<string>;
}

/**
 * Where one instance's reads place a key's arrival: after `absentAt` (when the last read without it was sent;
 * -Infinity when the first read had it already) and by `seenAt` (when the first answer with it came; Infinity when
 * none had it).
 */
function arrivalOf(reads: readonly JwksRead[], kid: string): { absentAt: number; seenAt: number } {
  const first = reads.findIndex(({ kids }) => kids.has(kid));
  if (first < 0) return { absentAt: Infinity, seenAt: Infinity };
  return { absentAt: first === 0 ? -Infinity : reads[first - 1]!.sentAt, seenAt: reads[first]!.receivedAt };
}

describe('three instances on one redis, keys rotated again and again under traffic', () => {
  it('never refuse a valid token, never use a dropped key after the drop answered, and publish every key before it signs', async () => {
    const environment = uniqueEnvironment();
    const config = {
      environment,
      store: redis.url,
      issuer: 'https://api.example.com',
      keys: { rotation_interval: `${ROTATION_INTERVAL_MS}ms` },
      routes: [{ path: '/business/score/v2/', upstream: upstream.url, timeout: '2s' }],
    };
    gateways.push(...(await Promise.all([0, 1, 2].map(() => GatewayProcess.start(config)))));
    await Promise.all(gateways.map((gateway) => gateway.ready()));

    // Every instance's JWKS, read all along: where each kid arrived, and when (arrivalOf).
    const polls = gateways.map(() => [] as JwksRead[]);
    // The first key of a new ring signs from its creation: the one key not held to publish-before-use.
    const initialKid = decodeProtectedHeader((await issueTokens(gateways[0]!.url)).access_token).kid!;
    let on = true;
    const pollers = gateways.map(async (gateway, i) => {
      while (on) {
        const sentAt = Date.now();
        const { keys } = (await (await fetch(`${gateway.url}/oauth2/v1/keys`)).json()) as { keys: Array<{ kid: string }> };
        polls[i]!.push({ sentAt, receivedAt: Date.now(), kids: new Set(keys.map(({ kid }) => kid)) });
        await sleep(JWKS_POLL_MS);
      }
    });

    let calls = 0;
    const refusals: Refusal[] = [];
    let droppedKids = new Set<string>();
    let dropAnsweredAt = Infinity;
    const check = async ({ token, kid }: Issued, gateway: GatewayProcess, instance: number) => {
      const startedAt = Date.now();
      const { status } = await callProtected(gateway.url, token.access_token);
      calls++;
      if (status !== 200) refusals.push({ kid, status, instance, at: startedAt });
    };

    // Tokens issued all along, by refresh chains on every instance in turn.
    const issued: Issued[] = [];
    const issuers = [0, 1, 2].map(async (worker) => {
      let tokens = await issueTokens(gateways[worker]!.url);
      for (let n = 0; on; n++) {
        const response = await refreshGrant(gateways[(worker + n) % 3]!.url, tokens.refresh_token);
        expect(response.status).toBe(200);
        tokens = (await response.json()) as TokenResponse;
        const fresh = { token: tokens, kid: decodeProtectedHeader(tokens.access_token).kid!, at: Date.now() };
        issued.push(fresh);
        // At once, on every instance: where a key arrives late, its first tokens are refused.
        await Promise.all(gateways.map((gateway, instance) => check(fresh, gateway, instance)));
      }
    });

    // Protected calls with the newest tokens through all three instances, a few hundred a second at most.
    const callers = [0, 1, 2, 3].map(async () => {
      while (on) {
        const recent = issued.slice(-6);
        if (recent.length === 0) {
          await sleep(10);
          continue;
        }
        await Promise.all(recent.flatMap((fresh) => gateways.map((gateway, instance) => check(fresh, gateway, instance))));
        await sleep(5);
      }
    });

    // Rotations, on each instance in turn: promotions (some at once, some later), a drop, an emergency.
    const answers: Array<{ input: Record<string, unknown>; status: number; body: Record<string, unknown> }> = [];
    const rotate = async (instance: number, input: Record<string, unknown> = {}) => {
      const { status, body } = await adminCall(gateways[instance]!.adminUrl, 'POST', '/admin/v1/keys/rotate', input);
      answers.push({ input, status, body });
      return { status, body };
    };
    try {
      await sleep(700);
      await rotate(0);
      await sleep(1_000);
      await rotate(1);
      await sleep(1_000);
      await rotate(2);
      // Longer than the lead (2.4 s) after the key the last rotation published: drop_previous may promote it now.
      await sleep(3_000);
      const drop = await rotate(0, { drop_previous: true });
      droppedKids = new Set(drop.body.dropped as string[]);
      dropAnsweredAt = Date.now();
      await sleep(1_000);
      await rotate(1, { immediate: true });
      await sleep(1_000);
      await rotate(2);
      await sleep(1_000);
    } finally {
      on = false;
      await Promise.all([...pollers, ...issuers, ...callers]);
    }

    expect(answers.map(({ status }) => status)).toEqual(answers.map(() => 200));
    expect(calls).toBeGreaterThan(1_000);
    expect(issued.length).toBeGreaterThan(50);

    // No valid token refused: a refusal is only ever of a dropped key's token, after the drop.
    const refusedValid = refusals.filter(({ kid, at }) => !(droppedKids.has(kid) && at >= dropAnsweredAt - 2_000));
    expect(refusedValid).toEqual([]);
    // Once the drop answered: no token with a dropped key issued, none accepted anywhere.
    expect(issued.filter(({ kid, at }) => droppedKids.has(kid) && at > dropAnsweredAt)).toEqual([]);
    expect(droppedKids.size).toBeGreaterThan(0);

    // Every kid a token carried was in every instance's JWKS before the first token carrying it, a cache lifetime before
    // unless it was the emergency's (published and acknowledged everywhere just before it signed).
    const emergencyKid = answers.find(({ input }) => input.immediate)!.body.kid as string;
    const firstUse = new Map<string, number>();
    for (const { kid, at } of issued) if (!firstUse.has(kid)) firstUse.set(kid, at);
    const used = [...firstUse.keys()].filter((kid) => kid !== initialKid);
    expect(used.length).toBeGreaterThanOrEqual(4);
    for (const kid of used) {
      // A key reached instance i after the last read sent there that did not have it, and its first token was signed
      // before the test received it: firstUse - absentEverywhere is at least the true lead. So a figure under the
      // bound proves a late key, whatever the machine's load did to the polls' timing (a fixed allowance for a late
      // poll failed once in CI when a poll came 450 ms late).
      const arrivals = polls.map((reads) => arrivalOf(reads, kid));
      const lead = firstUse.get(kid)! - Math.max(...arrivals.map(({ absentAt }) => absentAt));
      // The emergency key is published and acknowledged everywhere just before it signs: a lead of at least 0.
      expect(lead, `kid ${kid}`).toBeGreaterThanOrEqual(kid === emergencyKid ? 0 : MAX_AGE_MS);
      // And the polls were close enough to tell: each saw the key within a JWKS lifetime of the read before it (a key
      // already in an instance's first read was published before the traffic began, long before it could sign).
      for (const [i, { absentAt, seenAt }] of arrivals.entries()) {
        if (absentAt === -Infinity) continue;
        expect(seenAt - absentAt, `kid ${kid} on instance ${i}: time between the read without it and the first with it`).toBeLessThan(MAX_AGE_MS);
      }
    }
    // Each answer came once all three had installed its ring.
    for (const { body } of answers) expect(body.confirmed).toHaveLength(3);
  }, 60_000);
});
