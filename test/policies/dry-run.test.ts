import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { dryRun, passes, syntheticRequest, type DryRunRequest } from '../../src/policies/dry-run.js';
import { uncounted } from '../../src/policies/figures.js';
import { StreamRejection, type CompiledPolicy, type PolicyCheck, type PolicyMode } from '../../src/policies/policy.js';

const policy = (name: string, check: PolicyCheck, mode: PolicyMode = 'enforce'): CompiledPolicy => ({ name, kind: 'test-kind', mode, check, figures: uncounted(name, 'test-kind') });
const REQUEST: DryRunRequest = {
  method: 'POST',
  target: '/api/x?q=1&q=2&r=%27',
  headers: [
    ['X-Tag', 'a'],
    ['x-tag', 'b'],
    ['Content-Type', 'application/json'],
  ],
  body: Buffer.from('{"a":1}'),
  clientAddress: '10.0.0.7',
  clientId: 'portal',
  user: undefined,
};
const fresh = () => syntheticRequest(REQUEST, { path: '/api/x', bodyLimit: 1024 });

describe('the policies\' view of a dry-run request', () => {
  it('is built as the gateway builds it from a live one', async () => {
    const request = fresh();
    expect({ path: request.path, q: request.query.getAll('q'), r: request.query.get('r'), address: request.clientAddress }).toEqual({ path: '/api/x', q: ['1', '2'], r: "'", address: '10.0.0.7' });
    expect(request.req.headersDistinct['x-tag']).toEqual(['a', 'b']);
    expect(request.req.headers['x-tag']).toBe('a, b');
    expect(request.req.headers['content-length']).toBe('7');
    expect(await request.body.text()).toBe('{"a":1}');
    expect([await request.clientId(), await request.user()]).toEqual(['portal', undefined]);
  });

  it('holds its body to the limit of what serves it', async () => {
    const request = syntheticRequest(REQUEST, { path: '/api/x', bodyLimit: 3 });
    await expect(request.body.text()).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('a dry run of a chain', () => {
  it('gives each verdict in order with why: the explanation of a pass, the detail of a refusal', async () => {
    const verdicts = await dryRun(
      [
        policy('explains', (_request, explain) => {
          explain?.('10.0.0.7 allowed by rule 1');
          return undefined;
        }),
        policy('silent', () => undefined),
        policy('refuses', () => ({ code: 'IP_RANGE_FORBIDDEN', detail: '10.0.0.7 denied by rule 2' })),
      ],
      fresh,
    );
    expect(verdicts).toEqual([
      { policy: 'explains', kind: 'test-kind', mode: 'enforce', verdict: 'pass', reached: true, reason: '10.0.0.7 allowed by rule 1' },
      { policy: 'silent', kind: 'test-kind', mode: 'enforce', verdict: 'pass', reached: true, reason: 'passed' },
      { policy: 'refuses', kind: 'test-kind', mode: 'enforce', verdict: 'refuse', reached: true, reason: '10.0.0.7 denied by rule 2', status: 403, errorCode: 'IP_RANGE_FORBIDDEN' },
    ]);
    expect(passes(verdicts)).toBe(false);
  });

  it('lets a report-only refusal through and goes on; marks what follows an enforcing refusal as not reached', async () => {
    const verdicts = await dryRun(
      [
        policy('shadow', () => ({ code: 'REGEX_THREAT', detail: 'pattern p matched the path' }), 'report'),
        policy('stops', () => {
          throw new StreamRejection('JSON_THREAT', { detail: 'nested deeper than 3 levels' });
        }),
        policy('after', () => undefined),
      ],
      fresh,
    );
    expect(verdicts.map(({ policy: name, verdict, reached }) => [name, verdict, reached])).toEqual([
      ['shadow', 'would-refuse', true],
      ['stops', 'refuse', true],
      ['after', 'pass', false],
    ]);
    expect(passes(verdicts.slice(0, 1))).toBe(true);
  });

  it('reports a failure in what a check consulted as such, not as the policy', async () => {
    const [verdict] = await dryRun([policy('reads', () => Promise.reject(new GatewayError('PAYLOAD_TOO_LARGE', { detail: 'body passed 3 bytes' })))], fresh);
    expect(verdict).toEqual({ policy: 'reads', kind: 'test-kind', mode: 'enforce', verdict: 'failed', reached: true, reason: 'body passed 3 bytes (refused as PAYLOAD_TOO_LARGE, not by the policy)', status: 413, errorCode: 'PAYLOAD_TOO_LARGE' });
  });

  it('gives each policy the request afresh, as if the ones before it had passed', async () => {
    const bodies: string[] = [];
    const reads: PolicyCheck = async (request) => {
      bodies.push(await request.body.text());
      return undefined;
    };
    await dryRun([policy('one', reads), policy('two', reads)], fresh);
    expect(bodies).toEqual(['{"a":1}', '{"a":1}']);
  });

  it('lets a defect through', async () => {
    await expect(dryRun([policy('broken', () => { throw new TypeError('bug'); })], fresh)).rejects.toThrow(TypeError);
  });
});
