import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { bootGateway, callProtected, errorOf, issueTokens, passwordGrant, refreshGrant, revoke, type TestGateway } from '../helpers/gateway.js';
import { adminCall } from '../helpers/admin.js';
import { scrape, scrapeCounted, type Scrape } from '../helpers/metrics.js';

const ROTATION_MS = 200;
const PROTECTED = '/business/score/v2/';
const TOKEN = '/oauth2/v1/token';

/** A route whose policy refuses every caller on loopback, where tests come from. */
const NO_LOOPBACK = { policies: [{ name: 'no-loopback', kind: 'ip-range', rules: [{ deny: '127.0.0.0/8' }], default: 'allow' }] };

/**
 * GET /metrics on the admin listener of a running gateway: every counter is
 * read before and after real requests, so each assertion is a difference
 * the requests made. The clock is frozen; a key rotation happens only when a
 * test advances it.
 */
describe('metrics on the admin listener', () => {
  const clock = new ManualClock();
  let gw: TestGateway;
  let admin: string;
  /** Requests made so far on the client listener, to wait until each is counted. */
  let made = 0;
  const counted = (more: number): Promise<Scrape> => scrapeCounted(admin, (made += more));

  beforeAll(async () => {
    gw = await bootGateway({
      clock,
      policies: { blocked: NO_LOOPBACK },
      config: (upstream) => ({
        keys: { rotation_interval: `${ROTATION_MS}ms` },
        routes: [
          { path: PROTECTED, upstream, timeout: '2s' },
          { path: '/blocked/', upstream, policies: ['no-loopback'] },
        ],
      }),
    });
    admin = gw.gateway.adminUrl!;
  });
  afterAll(() => gw.close());

  it('answers in the text exposition format, with the registry Content-Type and the process metrics', async () => {
    const response = await fetch(`${admin}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const scraped = await scrape(admin);
    expect(scraped.typeOf('token_gateway_requests_total')).toBe('counter');
    expect(scraped.typeOf('token_gateway_request_duration_seconds')).toBe('histogram');
    expect(scraped.typeOf('token_gateway_store_up')).toBe('gauge');
    // Log lines dropped for a consumer that did not keep up (log/destination.ts): exported at 0 from the start.
    expect(scraped.typeOf('token_gateway_log_lines_dropped_total')).toBe('counter');
    expect(scraped.has('process_cpu_user_seconds_total')).toBe(true);
    expect(scraped.has('nodejs_eventloop_lag_seconds')).toBe(true);
    // Every catalogue code is exported at zero before its first failure, so rate() and alerts see the series.
    expect(scraped.has('token_gateway_failures_total', { error_code: 'UPSTREAM_TIMEOUT', status: '504' })).toBe(true);
  });

  it('counts a password grant, a refresh and both kinds of revocation', async () => {
    const before = await counted(0);
    const first = await issueTokens(gw.url);
    const refreshed = await refreshGrant(gw.url, first.refresh_token);
    expect(refreshed.status).toBe(200);
    const second = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect((await revoke(gw.url, first.access_token)).status).toBe(200);
    expect((await revoke(gw.url, second.refresh_token)).status).toBe(200);
    expect((await revoke(gw.url, 'no-such-token')).status).toBe(200);
    const after = await counted(5);

    const delta = (name: string, labels: Record<string, string> = {}) => after.value(name, labels) - before.value(name, labels);
    expect(delta('token_gateway_tokens_issued_total', { grant_type: 'password' })).toBe(1);
    expect(delta('token_gateway_tokens_issued_total', { grant_type: 'refresh_token' })).toBe(1);
    const byEndpoint = { reason: 'revocation_endpoint' };
    expect(delta('token_gateway_tokens_revoked_total', { token_type: 'access_token', ...byEndpoint })).toBe(1);
    expect(delta('token_gateway_tokens_revoked_total', { token_type: 'refresh_token', ...byEndpoint })).toBe(1);
    expect(delta('token_gateway_tokens_revoked_total', { token_type: 'none', ...byEndpoint })).toBe(1);
    expect(delta('token_gateway_tokens_revoked_total')).toBe(3);
    expect(delta('token_gateway_requests_total', { route: TOKEN, method: 'POST', status: '200' })).toBe(2);
    expect(delta('token_gateway_requests_total', { route: '/oauth2/v1/revokeToken', method: 'POST', status: '200' })).toBe(3);
    expect(delta('token_gateway_request_duration_seconds_count', { route: TOKEN })).toBe(2);
    // One revoked access token and one revoked grant.
    expect(delta('token_gateway_revocation_list_size')).toBe(2);
  });

  it('counts a refresh retried within the grace window, and a replay under the reason that revoked its grant', async () => {
    const before = await counted(0);
    const first = await issueTokens(gw.url);
    const second = (await (await refreshGrant(gw.url, first.refresh_token)).json()) as { refresh_token: string };
    expect((await refreshGrant(gw.url, first.refresh_token)).status).toBe(200);
    expect((await refreshGrant(gw.url, second.refresh_token)).status).toBe(200);
    expect((await refreshGrant(gw.url, first.refresh_token)).status).toBe(400);
    const after = await counted(5);

    const delta = (name: string, labels: Record<string, string> = {}) => after.value(name, labels) - before.value(name, labels);
    expect(delta('token_gateway_refresh_retries_total', { outcome: 'answered' })).toBe(1);
    expect(delta('token_gateway_refresh_retries_total', { outcome: 'successor_used' })).toBe(1);
    expect(delta('token_gateway_refresh_retries_total')).toBe(2);
    expect(delta('token_gateway_tokens_revoked_total', { token_type: 'refresh_token', reason: 'reuse_detected' })).toBe(1);
    expect(delta('token_gateway_tokens_issued_total', { grant_type: 'refresh_token' })).toBe(3);
    for (const outcome of ['answered', 'after_window', 'successor_used', 'too_many']) {
      expect(after.has('token_gateway_refresh_retries_total', { outcome })).toBe(true);
    }
    for (const reason of ['revocation_endpoint', 'kill_switch', 'reuse_detected']) {
      expect(after.has('token_gateway_tokens_revoked_total', { token_type: 'refresh_token', reason })).toBe(true);
    }
  });

  it('counts a protected call that reaches the upstream, with the gateway and upstream latency', async () => {
    const { access_token } = await issueTokens(gw.url);
    const before = await counted(1);
    expect((await callProtected(gw.url, access_token)).status).toBe(200);
    const after = await counted(1);

    const route = { route: PROTECTED };
    expect(after.value('token_gateway_requests_total', { ...route, method: 'GET', status: '200' }) - before.value('token_gateway_requests_total', { ...route, method: 'GET', status: '200' })).toBe(1);
    for (const histogram of ['token_gateway_request_duration_seconds', 'token_gateway_upstream_duration_seconds']) {
      expect(after.value(`${histogram}_count`, route) - before.value(`${histogram}_count`, route)).toBe(1);
      expect(after.value(`${histogram}_bucket`, { ...route, le: '+Inf' }) - before.value(`${histogram}_bucket`, { ...route, le: '+Inf' })).toBe(1);
      expect(after.value(`${histogram}_sum`, route)).toBeGreaterThan(before.value(`${histogram}_sum`, route));
    }
    // The upstream's part is part of the whole.
    const spent = (scraped: Scrape, histogram: string) => scraped.value(`${histogram}_sum`, route);
    expect(spent(after, 'token_gateway_upstream_duration_seconds') - spent(before, 'token_gateway_upstream_duration_seconds')).toBeLessThanOrEqual(
      spent(after, 'token_gateway_request_duration_seconds') - spent(before, 'token_gateway_request_duration_seconds'),
    );
  });

  it('counts a 401 under its catalogue code, and does not time an upstream that was never called', async () => {
    const before = await counted(0);
    expect(await errorOf(await callProtected(gw.url, 'not-a-jwt'))).toMatchObject({ status: 401, errorCode: 'ACCESS_TOKEN_INVALID' });
    const after = await counted(1);
    const failures = { error_code: 'ACCESS_TOKEN_INVALID', status: '401' };
    expect(after.value('token_gateway_failures_total', failures) - before.value('token_gateway_failures_total', failures)).toBe(1);
    expect(after.value('token_gateway_requests_total', { route: PROTECTED, status: '401' }) - before.value('token_gateway_requests_total', { route: PROTECTED, status: '401' })).toBe(1);
    expect(after.value('token_gateway_upstream_duration_seconds_count')).toBe(before.value('token_gateway_upstream_duration_seconds_count'));
    expect(after.value('token_gateway_policy_rejections_total')).toBe(before.value('token_gateway_policy_rejections_total'));
  });

  it('counts a policy rejection under the policy name and kind', async () => {
    const before = await counted(0);
    expect(await errorOf(await fetch(`${gw.url}/blocked/anything`))).toMatchObject({ status: 403, errorCode: 'IP_RANGE_FORBIDDEN' });
    const after = await counted(1);
    const policy = { policy: 'no-loopback', kind: 'ip-range' };
    expect(after.value('token_gateway_policy_rejections_total', policy) - before.value('token_gateway_policy_rejections_total', policy)).toBe(1);
    const failures = { error_code: 'IP_RANGE_FORBIDDEN', status: '403' };
    expect(after.value('token_gateway_failures_total', failures) - before.value('token_gateway_failures_total', failures)).toBe(1);
    expect(after.value('token_gateway_requests_total', { route: '/blocked/', method: 'GET', status: '403' })).toBe(1);
  });

  it('labels a path no route serves with a fixed route, never the path a client chose', async () => {
    const before = await counted(0);
    expect((await fetch(`${gw.url}/nothing/here-${Date.now()}`)).status).toBe(404);
    const after = await counted(1);
    const unmatched = { route: 'unmatched', method: 'GET', status: '404' };
    expect(after.value('token_gateway_requests_total', unmatched) - before.value('token_gateway_requests_total', unmatched)).toBe(1);
    expect(after.text).not.toContain('/nothing/');
  });

  it('reports the store up, the gateway ready and the keys loaded', async () => {
    const scraped = await scrape(admin);
    expect(scraped.value('token_gateway_store_up')).toBe(1);
    expect(scraped.value('token_gateway_ready')).toBe(1);
    expect(scraped.value('token_gateway_signing_keys')).toBe(2);
  });

  it('counts a scheduled key rotation when the clock reaches the next key', async () => {
    const scheduled = { trigger: 'schedule' };
    const before = await scrape(admin);
    expect(before.value('token_gateway_key_rotations_total')).toBe(0);
    // The schedule's timer is the clock's: advancing it starts the rotation at once; its run (a new key, the store write) is polled for.
    clock.advance(ROTATION_MS);
    const after = await eventually(
      async () => {
        const scraped = await scrape(admin);
        return scraped.value('token_gateway_key_rotations_total', scheduled) > 0 && scraped;
      },
      { what: 'a scheduled rotation counted' },
    );
    expect(after.value('token_gateway_key_rotations_total', scheduled)).toBe(1);
    expect(after.value('token_gateway_key_rotations_total', { trigger: 'admin' })).toBe(0);
    // The next key is published beside the signing one and the one it replaced, which still verifies.
    expect(after.value('token_gateway_signing_keys')).toBe(3);
    expect(gw.logs.filter((line) => line.msg === 'signing key rotated')).toHaveLength(1);
  });

  it('counts a rotation asked for through the admin API under its own trigger', async () => {
    const before = await scrape(admin);
    expect((await adminCall(admin, 'POST', '/admin/v1/keys/rotate')).status).toBe(200);
    const after = await scrape(admin);
    expect(after.value('token_gateway_key_rotations_total', { trigger: 'admin' }) - before.value('token_gateway_key_rotations_total', { trigger: 'admin' })).toBe(1);
    expect(after.value('token_gateway_key_rotations_total', { trigger: 'schedule' })).toBe(before.value('token_gateway_key_rotations_total', { trigger: 'schedule' }));
  });

  describe('the admin listener', () => {
    it('serves the probes', async () => {
      expect((await fetch(`${admin}/livez`)).status).toBe(200);
      const ready = await fetch(`${admin}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', checks: { store: 'up', keys: 'loaded' } });
    });

    it.each([
      ['GET', '/nothing', 404, undefined],
      ['GET', '/oauth2/v1/token', 404, undefined],
      ['POST', '/metrics', 405, 'GET'],
      ['DELETE', '/readyz', 405, 'GET, HEAD'],
      ['PUT', '/livez', 405, 'GET, HEAD'],
    ])('answers %s %s with %i and a JSON error', async (method, path, status, allow) => {
      const response = await fetch(`${admin}${path}`, { method });
      expect(response.status).toBe(status);
      expect(response.headers.get('allow') ?? undefined).toBe(allow);
      expect(((await response.json()) as { error: string }).error).toMatch(status === 404 ? `no admin endpoint at ${path}` : `${method} is not allowed here`);
    });
  });
});

describe('metrics below the info log level', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await bootGateway({ config: { log: { level: 'warn' } } });
  });
  afterAll(() => gw.close());

  it('still counts every request, though no access line is written', async () => {
    expect((await passwordGrant(gw.url)).status).toBe(200);
    expect((await callProtected(gw.url, undefined)).status).toBe(401);
    const scraped = await scrapeCounted(gw.gateway.adminUrl!, 2);
    expect(scraped.value('token_gateway_requests_total', { route: TOKEN, status: '200' })).toBe(1);
    expect(scraped.value('token_gateway_failures_total', { error_code: 'AUTHENTICATION_REQUIRED' })).toBe(1);
    expect(gw.logs.filter((line) => line.msg === 'request')).toEqual([]);
  });
});
