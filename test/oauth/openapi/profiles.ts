import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../helpers/clock.js';
import { bootGateway, type BootOptions, type TestGateway } from '../../helpers/gateway.js';
import { RedisServer } from '../../helpers/redis-server.js';
import { uniqueEnvironment } from '../../helpers/redis-store.js';

/**
 * The gateways the recipes run against. Most answers need nothing but a
 * request; the others need a configuration that makes them reachable:
 *
 * - plain: no policies; a small OAuth body limit (413 with a 2 KB body), a
 *   brute-force threshold of 3 failed passwords, and RFC 6749 forms allowed
 *   (oauth.form_encoded) for every app but app-two.
 * - guarded: policies on every path that fire only on marked requests (an
 *   `X-Probe` header, an address of 203.0.113.0/24 via a trusted proxy, a
 *   JSON body on a GET), so the ordinary request still passes.
 * - spike: one request a minute per address on every path, on a frozen clock:
 *   the second request is arrested.
 * - closed: office hours on every path, on a clock that says Sunday night.
 * - store-down: Redis that was stopped before the gateway started, so the key
 *   ring never loads and every store command fails.
 */
export type ProfileName = 'plain' | 'guarded' | 'spike' | 'closed' | 'store-down';

const SMALL_BODIES = { limits: { oauth_body_size: '1kb' } };
// Monday 2026-11-23 09:00 and Sunday 2026-11-22 03:00 in Chicago (CST, UTC-6).
const MONDAY_9AM_CHICAGO = Date.parse('2026-11-23T15:00:00Z');
const SUNDAY_3AM_CHICAGO = Date.parse('2026-11-22T09:00:00Z');

const everywhere = (names: string[]) => ({ policies: { defaults: names } });

const GUARDS = {
  policies: [
    { name: 'probe-guard', kind: 'regex-protection', apply_to: { path: false, query: false, headers: ['X-Probe'], json_body: 'none' } },
    { name: 'test-net-ban', kind: 'ip-range', rules: [{ deny: '203.0.113.0/24' }], default: 'allow' },
    { name: 'shallow-json', kind: 'json-threat', max_depth: 4 },
  ],
};

async function storeDownOptions(): Promise<{ options: BootOptions; release: () => Promise<void> }> {
  const redis = await RedisServer.start();
  await redis.stop();
  const dir = await mkdtemp(join(tmpdir(), 'token-gateway-kek-'));
  const kek = join(dir, 'kek');
  await writeFile(kek, randomBytes(32).toString('base64'));
  const options: BootOptions = {
    config: {
      ...SMALL_BODIES,
      store: { redis: { url: redis.url, connect_timeout: '200ms', command_timeout: '200ms' } },
      environment: uniqueEnvironment(),
      keys: { encryption_key_file: kek },
    },
  };
  return {
    options,
    release: async () => {
      await redis.dispose();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function optionsOf(name: ProfileName): Promise<{ options: BootOptions; release?: () => Promise<void> }> {
  switch (name) {
    case 'plain':
      return {
        options: {
          // Forms on, so that the document lists them and the recipes can check them; app-two keeps to the spec format.
          config: { ...SMALL_BODIES, brute_force: { max_failures_per_username: 3 }, oauth: { form_encoded: true } },
          appSettings: { 'app-two': { form_encoded: false } },
        },
      };
    case 'guarded':
      return {
        options: {
          policies: { guards: GUARDS },
          config: { ...SMALL_BODIES, trusted_proxies: ['127.0.0.1'], ...everywhere(['probe-guard', 'test-net-ban', 'shallow-json']) },
        },
      };
    case 'spike':
      return {
        options: {
          clock: new ManualClock(MONDAY_9AM_CHICAGO),
          policies: { spike: { policies: [{ name: 'one-a-minute', kind: 'spike-arrest', rate: '1pm', identifier: 'ip' }] } },
          config: everywhere(['one-a-minute']),
        },
      };
    case 'closed':
      return {
        options: {
          clock: new ManualClock(SUNDAY_3AM_CHICAGO),
          policies: { hours: { policies: [{ name: 'office-hours', kind: 'time-of-day', time_zone: 'America/Chicago', windows: [{ days: ['mon-fri'], from: '08:00', to: '18:00' }] }] } },
          config: everywhere(['office-hours']),
        },
      };
    case 'store-down':
      return storeDownOptions();
  }
}

/** Gateways booted on first use, one per profile, closed together. */
export class Profiles {
  private readonly booted = new Map<ProfileName, Promise<{ gateway: TestGateway; release?: () => Promise<void> }>>();

  async get(name: ProfileName): Promise<TestGateway> {
    let entry = this.booted.get(name);
    if (!entry) {
      entry = optionsOf(name).then(async ({ options, release }) => {
        try {
          return { gateway: await bootGateway(options), release };
        } catch (error) {
          await release?.();
          throw error;
        }
      });
      this.booted.set(name, entry);
    }
    return (await entry).gateway;
  }

  async closeAll(): Promise<void> {
    const entries = await Promise.allSettled(this.booted.values());
    for (const entry of entries) {
      if (entry.status !== 'fulfilled') continue;
      await entry.value.gateway.close();
      await entry.value.release?.();
    }
  }
}
