import { describe, expect, it } from 'vitest';
import { ipRange } from '../../../src/policies/ip-range/check.js';
import type { CompileDeps } from '../../../src/policies/policy.js';
import { policyRequest } from '../../helpers/policy-request.js';

const compile = (settings: unknown) => {
  const parsed = ipRange.schema.parse(settings);
  return ipRange.compile(parsed, {} as CompileDeps);
};

describe('ip-range verdicts, remembered per address', () => {
  it('answers each address by its own rules however the calls interleave', async () => {
    const check = compile({ name: 'office', kind: 'ip-range', rules: [{ deny: ['10.0.0.9'] }, { allow: ['10.0.0.0/8'] }], default: 'deny' });
    const sequence = ['10.0.0.1', '10.0.0.9', '10.0.0.1', '192.0.2.1', '10.0.0.9', '::ffff:10.0.0.1', 'not-an-address', '10.0.0.1'];
    const verdicts = [];
    for (const clientAddress of sequence) verdicts.push((await check(policyRequest({ clientAddress })))?.detail ?? 'allowed');
    expect(verdicts).toEqual([
      'allowed',
      '10.0.0.9 denied by rule 1 (10.0.0.9/32)',
      'allowed',
      '192.0.2.1 denied by the default action',
      '10.0.0.9 denied by rule 1 (10.0.0.9/32)',
      'allowed',
      'client address "not-an-address" is not an IP address',
      'allowed',
    ]);
  });

  it('stays right past its memory bound', async () => {
    const check = compile({ name: 'net', kind: 'ip-range', rules: [{ allow: ['10.0.0.0/16'] }], default: 'deny' });
    for (let i = 0; i < 10_050; i++) {
      const clientAddress = `10.${i % 2}.${(i >> 8) & 255}.${i & 255}`;
      const verdict = await check(policyRequest({ clientAddress }));
      expect([clientAddress, verdict === undefined]).toEqual([clientAddress, i % 2 === 0]);
    }
  });
});
