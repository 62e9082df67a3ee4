import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { bootGateway, errorOf, issueTokens, type PolicyFile, type TestGateway } from '../helpers/gateway.js';
import { scrape, type Scrape } from '../helpers/metrics.js';
import { eventually } from '../helpers/eventually.js';

const SECRET_WORD = 'hunter2-is-my-password';

const policies = (guardMode: 'report' | 'enforce'): PolicyFile => ({
  policies: [
    { name: 'shadow-guard', kind: 'regex-protection', mode: guardMode, builtin: [], patterns: [{ name: 'secret-word', pattern: 'hunter2' }] },
    { name: 'shadow-json', kind: 'json-threat', mode: 'report', max_array_elements: 3, max_body_size: '1kb' },
    { name: 'shadow-spike', kind: 'spike-arrest', mode: 'report', rate: '1ps', identifier: 'header', header: 'x-caller' },
    { name: 'enforced-guard', kind: 'regex-protection', builtin: [], patterns: [{ name: 'blocked-word', pattern: 'blocked' }] },
  ],
});

const series = (policy: string, kind: string) => ({ policy, kind });

/**
 * `mode: report` over real HTTP: the policy runs whole, its would-be refusal
 * is logged and counted, and the request goes on through the rest of the
 * chain to the upstream. Shadow mode as Envoy's shadow_rules and AWS WAF's
 * Count action have it.
 */
describe('report-only policies (mode: report)', () => {
  const clock = new ManualClock(Date.parse('2026-11-23T15:00:00.000Z'));
  let gw: TestGateway;
  let token: string;
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${gw.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) } });
  const metrics = () => scrape(gw.gateway.adminUrl!);
  const delta = (before: Scrape, after: Scrape, name: string, labels: Record<string, string>) => after.value(name, labels) - before.value(name, labels);

  beforeAll(async () => {
    gw = await bootGateway({
      clock,
      policies: { main: policies('report') },
      config: (upstream) => ({
        routes: [
          { path: '/guard', upstream, policies: ['shadow-guard', 'enforced-guard'] },
          { path: '/json', upstream, policies: ['shadow-json'] },
          { path: '/spike', upstream, policies: ['shadow-spike'] },
        ],
      }),
    });
    token = (await issueTokens(gw.url)).access_token;
  });
  afterAll(() => gw.close());

  it('lets the request through, logs what it would refuse without the matched text, and counts it', async () => {
    const before = await metrics();
    const response = await call(`/guard/x?q=${SECRET_WORD}`);
    expect(response.status).toBe(200);
    expect(gw.upstream.seen.at(-1)?.url).toBe(`/guard/x?q=${SECRET_WORD}`);
    await eventually(() => gw.logs.some((line) => line.msg === 'request' && line.path === '/guard/x'));
    const reported = gw.logs.find((line) => typeof line.msg === 'string' && line.msg.startsWith('policy would refuse'));
    expect(reported).toMatchObject({
      level: 30,
      route: '/guard',
      policy: 'shadow-guard',
      kind: 'regex-protection',
      mode: 'report',
      errorCode: 'REGEX_THREAT',
      detail: 'policy shadow-guard: pattern secret-word matched query parameter q',
    });
    expect(gw.rawLogs.join('')).not.toContain(SECRET_WORD);
    const access = gw.logs.find((line) => line.msg === 'request' && line.path === '/guard/x');
    expect(access).toMatchObject({ status: 200, requestId: reported?.requestId });
    expect(access?.policy).toBeUndefined();
    const after = await metrics();
    expect(delta(before, after, 'token_gateway_policy_would_refuse_total', series('shadow-guard', 'regex-protection'))).toBe(1);
    expect(delta(before, after, 'token_gateway_policy_refusals_total', series('shadow-guard', 'regex-protection'))).toBe(0);
    expect(delta(before, after, 'token_gateway_policy_evaluations_total', series('shadow-guard', 'regex-protection'))).toBe(1);
    expect(delta(before, after, 'token_gateway_policy_evaluations_total', series('enforced-guard', 'regex-protection'))).toBe(1);
  });

  it('does not stop the chain: an enforcing policy after it still refuses', async () => {
    const before = await metrics();
    const { status, errorCode } = await errorOf(await call(`/guard/x?q=${SECRET_WORD}&r=blocked`));
    expect({ status, errorCode }).toEqual({ status: 401, errorCode: 'REGEX_THREAT' });
    const after = await metrics();
    expect(delta(before, after, 'token_gateway_policy_would_refuse_total', series('shadow-guard', 'regex-protection'))).toBe(1);
    expect(delta(before, after, 'token_gateway_policy_refusals_total', series('enforced-guard', 'regex-protection'))).toBe(1);
    // The old name of the refusals series carries the same numbers.
    expect(after.value('token_gateway_policy_rejections_total', series('enforced-guard', 'regex-protection'))).toBe(
      after.value('token_gateway_policy_refusals_total', series('enforced-guard', 'regex-protection')),
    );
  });

  it('json-threat in report mode forwards the whole body it would have cut, announced or chunked', async () => {
    const before = await metrics();
    const announced = JSON.stringify({ list: [1, 2, 3, 4, 5, 6], text: 'x'.repeat(2_000) });
    const first = await call('/json/x', { method: 'POST', body: announced, headers: { 'content-type': 'application/json' } });
    expect(first.status).toBe(200);
    expect(gw.upstream.seen.at(-1)?.body).toBe(announced);
    const parts = ['[', ...Array.from({ length: 300 }, (_, i) => `${i},`), '0]'];
    const chunked = new ReadableStream({
      start(controller) {
        for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
        controller.close();
      },
    });
    const second = await call('/json/x', { method: 'POST', body: chunked, headers: { 'content-type': 'application/json' }, duplex: 'half' } as RequestInit);
    expect(second.status).toBe(200);
    expect(gw.upstream.seen.at(-1)?.body).toBe(parts.join(''));
    const after = await metrics();
    expect(delta(before, after, 'token_gateway_policy_would_refuse_total', series('shadow-json', 'json-threat'))).toBe(2);
  });

  it('spike-arrest in report mode counts as it would enforce, and refuses nothing', async () => {
    const before = await metrics();
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call('/spike/x', { headers: { 'x-caller': 'one-caller' } })).status);
    expect(statuses).toEqual([200, 200, 200]);
    const after = await metrics();
    // 1ps, the clock frozen: the first request takes the window, the other two would be refused.
    expect(delta(before, after, 'token_gateway_policy_would_refuse_total', series('shadow-spike', 'spike-arrest'))).toBe(2);
  });

  it('keeps its counters when a reload switches it to enforce, and enforces from then on', async () => {
    const before = await metrics();
    await gw.writePolicies('main', policies('enforce'));
    // What the folder watch does within 100 ms, done now so that no request runs under the old set meanwhile.
    expect(await gw.gateway.reloadPolicies('test')).toMatchObject({ ok: true });
    expect((await call(`/guard/x?q=${SECRET_WORD}`)).status).toBe(401);
    const after = await metrics();
    const guard = series('shadow-guard', 'regex-protection');
    expect(after.value('token_gateway_policy_would_refuse_total', guard)).toBe(before.value('token_gateway_policy_would_refuse_total', guard));
    expect(delta(before, after, 'token_gateway_policy_refusals_total', guard)).toBe(1);
    expect(after.value('token_gateway_policy_evaluations_total', guard)).toBeGreaterThan(before.value('token_gateway_policy_evaluations_total', guard));
    expect(after.value('token_gateway_policy_report_mode', guard)).toBe(0);
    expect(before.value('token_gateway_policy_report_mode', guard)).toBe(1);
  });

  it('times every evaluation in a histogram per policy', async () => {
    const scraped = await metrics();
    const guard = series('shadow-guard', 'regex-protection');
    expect(scraped.typeOf('token_gateway_policy_evaluation_seconds')).toBe('histogram');
    expect(scraped.value('token_gateway_policy_evaluation_seconds_count', guard)).toBe(scraped.value('token_gateway_policy_evaluations_total', guard));
    expect(scraped.value('token_gateway_policy_evaluation_seconds_bucket', { ...guard, le: '+Inf' })).toBe(scraped.value('token_gateway_policy_evaluations_total', guard));
  });
});
