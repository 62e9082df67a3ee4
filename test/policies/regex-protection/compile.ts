import { expect } from 'vitest';
import type { CompileDeps, PolicyCheck } from '../../../src/policies/policy.js';
import { regexProtection } from '../../../src/policies/regex-protection/check.js';
import { ManualClock } from '../../helpers/clock.js';
import { policyRequest, type PolicyRequestInit } from '../../helpers/policy-request.js';

/** What the regex-protection tests share: a check compiled from settings, and the verdict's detail. */

const deps: CompileDeps = {
  clock: new ManualClock(),
  windowCounter: () => {
    throw new Error('regex-protection keeps no counters');
  },
};

export const compile = (settings: Record<string, unknown> = {}): PolicyCheck =>
  regexProtection.compile(regexProtection.schema.parse({ name: 'injection-guard', kind: 'regex-protection', ...settings }), deps);

export const JSON_HEADERS = { 'content-type': 'application/json' };
export const SQL = "' or 1=1 --";

/** The log detail of the refusal, or undefined when the request passes. */
export async function detailOf(check: PolicyCheck, init: PolicyRequestInit): Promise<string | undefined> {
  const verdict = await check(policyRequest(init));
  if (verdict) expect(verdict.code).toBe('REGEX_THREAT');
  return verdict?.detail;
}

export const jsonBody = (value: unknown): PolicyRequestInit => ({ headers: JSON_HEADERS, body: [JSON.stringify(value)] });
