import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue } from '../../../src/errors/catalogue.js';
import { DISCOVERY_ERRORS, JWKS_ERRORS, OPENAPI_ERRORS, publicPathItems } from '../../../src/oauth/openapi/public-operations.js';
import { bootGateway, type TestGateway } from '../../helpers/gateway.js';

describe('the public GET paths in the OpenAPI document', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  it('documents discovery, the keys and the document itself, without authentication', () => {
    const items = publicPathItems(tg.gateway.context, '/oauth2/v1/openapi.json');
    expect(Object.keys(items)).toEqual(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/oauth2/v1/keys', '/oauth2/v1/openapi.json']);
    for (const item of Object.values(items)) expect((item.get as { security: unknown }).security).toEqual([]); // an empty requirement list: nothing to present
  });

  it('lets them fail only by policies, method, a defect (and the keys not loaded yet): they take no input', () => {
    const codes = (cases: ReadonlyArray<{ code: keyof typeof catalogue }>) => cases.map((errorCase) => errorCase.code).sort();
    expect(codes(DISCOVERY_ERRORS)).toEqual(codes(OPENAPI_ERRORS));
    expect(codes(JWKS_ERRORS)).toEqual([...codes(DISCOVERY_ERRORS), 'SERVICE_UNAVAILABLE'].sort());
    expect(codes(DISCOVERY_ERRORS)).toEqual(
      ['INTERNAL_ERROR', 'IP_RANGE_FORBIDDEN', 'JSON_THREAT', 'METHOD_NOT_ALLOWED', 'PAYLOAD_TOO_LARGE', 'REGEX_THREAT', 'SPIKE_ARREST', 'TIME_OF_DAY_FORBIDDEN'].sort(),
    );
  });
});
