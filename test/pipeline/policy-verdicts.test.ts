import { describe, expect, it } from 'vitest';
import type { GatewayContext } from '../../src/context.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import type { CompiledPolicy } from '../../src/policies/policy.js';
import { recordRefusal, reportWouldRefuse } from '../../src/pipeline/policy-verdicts.js';
import { RecentRefusals } from '../../src/telemetry/recent-refusals.js';
import { ManualClock } from '../helpers/clock.js';
import { fakeExchange } from '../helpers/exchange.js';

/** A context with what these two read: a logger that keeps its lines, the recent refusals and a frozen clock. */
function context() {
  const lines: Array<{ fields: Record<string, unknown>; msg: string }> = [];
  const logger = { info: (fields: Record<string, unknown>, msg: string) => void lines.push({ fields, msg }) };
  const ctx = { logger, refusals: new RecentRefusals(), clock: new ManualClock(Date.parse('2026-11-23T15:00:00Z')) } as unknown as GatewayContext;
  return { ctx, lines };
}

const SHADOW = { name: 'shadow-guard', kind: 'regex-protection', mode: 'report' } as CompiledPolicy;

describe('policy verdicts: what the pipeline does with them besides refusing', () => {
  it('logs a report-only refusal in one line with the verdict detail and records it as would-refuse', () => {
    const { ctx, lines } = context();
    const exchange = Object.assign(fakeExchange({ url: '/api/x?q=secret-word', clientAddress: '10.1.2.3' }), { route: '/api/', clientId: 'portal' });
    reportWouldRefuse(ctx, exchange, SHADOW, { code: 'REGEX_THREAT', detail: 'pattern p matched query parameter q' });
    expect(lines).toEqual([
      {
        msg: 'policy would refuse (report mode); the request goes on',
        fields: { requestId: 'test-request', route: '/api/', policy: 'shadow-guard', kind: 'regex-protection', mode: 'report', errorCode: 'REGEX_THREAT', detail: 'policy shadow-guard: pattern p matched query parameter q' },
      },
    ]);
    expect(ctx.refusals.newest()).toEqual([
      { at: Date.parse('2026-11-23T15:00:00Z'), route: '/api/', policy: 'shadow-guard', kind: 'regex-protection', mode: 'report', status: 401, errorCode: 'REGEX_THREAT', clientId: 'portal', clientAddress: '10.1.2.3', requestId: 'test-request' },
    ]);
  });

  it("records an enforcing policy's refusal with the status it is answered with", () => {
    const { ctx } = context();
    const exchange = Object.assign(fakeExchange(), {
      route: '/api/',
      error: new GatewayError('IP_RANGE_FORBIDDEN', { detail: 'policy net: 198.51.100.7 denied by the default action', policy: 'net', policyKind: 'ip-range' }),
    });
    recordRefusal(ctx, exchange);
    expect(ctx.refusals.newest()).toMatchObject([{ policy: 'net', kind: 'ip-range', mode: 'enforce', status: 403, errorCode: 'IP_RANGE_FORBIDDEN', clientId: undefined, clientAddress: '198.51.100.7' }]);
  });

  it('records nothing for a refusal that is not a policy verdict (a bad token a policy asked for)', () => {
    const { ctx } = context();
    const exchange = Object.assign(fakeExchange(), { error: new GatewayError('ACCESS_TOKEN_INVALID', { detail: 'policy per-client: ERR_JWS_INVALID' }) });
    recordRefusal(ctx, exchange);
    expect(ctx.refusals.newest()).toEqual([]);
  });
});
