import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../src/errors/catalogue.js';
import { INTERNAL_ERROR_CASE, methodNotAllowed, policyCases, PUBLIC_PATH_BODY_CASES } from '../../../src/oauth/openapi/common-cases.js';

describe('error cases shared by the token service paths', () => {
  it('names the four policy refusals, and where each can be attached', () => {
    const withApps = policyCases({ apps: true });
    expect(withApps.map((errorCase) => errorCase.code)).toEqual(['REGEX_THREAT', 'SPIKE_ARREST', 'IP_RANGE_FORBIDDEN', 'TIME_OF_DAY_FORBIDDEN']);
    for (const errorCase of withApps) expect(errorCase.when).toContain('`apps[].policies`');
    for (const errorCase of policyCases({ apps: false })) expect(errorCase.when).not.toContain('apps[]');
  });

  it('says which methods a 405 allows', () => {
    expect(methodNotAllowed(['GET', 'HEAD'])).toEqual({ code: 'METHOD_NOT_ALLOWED', when: 'Any method other than GET or HEAD; `Allow` lists them.' });
  });

  it('uses only catalogue codes', () => {
    for (const { code } of [...policyCases({ apps: true }), INTERNAL_ERROR_CASE, ...PUBLIC_PATH_BODY_CASES]) expect(catalogue).toHaveProperty(code);
  });
});
