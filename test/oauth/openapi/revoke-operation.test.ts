import { describe, expect, it } from 'vitest';
import type { GatewayContext } from '../../../src/context.js';
import { catalogue } from '../../../src/errors/catalogue.js';
import { REVOKE_ERRORS, revokePathItem } from '../../../src/oauth/openapi/revoke-operation.js';

describe('POST /oauth2/v1/revokeToken in the OpenAPI document', () => {
  // The spec's wire format only (oauth.form_encoded off, no app allowed forms): the document the default configuration serves.
  const specOnly = { config: { oauth: { form_encoded: false } }, accounts: { apps: [] } } as unknown as GatewayContext;
  const post = revokePathItem(specOnly).post as Record<string, unknown>;

  it('lists each error code once, every one a catalogue code, including RFC 7009\'s token of another client', () => {
    const codes = REVOKE_ERRORS.map((errorCase) => errorCase.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(catalogue).toHaveProperty(code);
    expect(codes).toContain('TOKEN_NOT_ISSUED_TO_CLIENT');
    expect(codes).toContain('TOKEN_REQUIRED');
    // No body or Content-Type is needed; only a body it would read, compressed, is refused.
    expect(codes).toContain('UNSUPPORTED_MEDIA_TYPE');
  });

  it('documents a response for every status its errors have', () => {
    const responses = post.responses as Record<string, unknown>;
    const statuses = new Set(REVOKE_ERRORS.map((errorCase) => String(catalogue[errorCase.code].status)));
    for (const status of statuses) expect(responses).toHaveProperty(status);
    expect(responses).toHaveProperty('200');
  });
});
