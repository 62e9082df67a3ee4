import { describe, expect, it } from 'vitest';
import type { GatewayContext } from '../../../src/context.js';
import { catalogue } from '../../../src/errors/catalogue.js';
import { TOKEN_ERRORS, tokenPathItem } from '../../../src/oauth/openapi/token-operation.js';
import { CLIENT_AUTHENTICATION } from '../../../src/oauth/openapi/security.js';

describe('POST /oauth2/v1/token in the OpenAPI document', () => {
  // The spec's wire format only (oauth.form_encoded off, no app allowed forms): the document the default configuration serves.
  const specOnly = { config: { oauth: { form_encoded: false } }, accounts: { apps: [] } } as unknown as GatewayContext;
  const post = tokenPathItem(specOnly).post as Record<string, unknown>;

  it('lists each error code once, every one a catalogue code', () => {
    const codes = TOKEN_ERRORS.map((errorCase) => errorCase.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(catalogue).toHaveProperty(code);
  });

  it('lists the checks in the order of blame: the content type, the shape, the client, then the user (SPEC 7)', () => {
    const position = (code: string) => TOKEN_ERRORS.findIndex((errorCase) => errorCase.code === code);
    const order = ['UNSUPPORTED_MEDIA_TYPE', 'CLIENT_CREDENTIALS_REQUIRED', 'USER_CREDENTIALS_REQUIRED', 'INVALID_CLIENT_CREDENTIALS', 'INVALID_USER_CREDENTIALS', 'USER_ACCOUNT_INVALID_STATE'];
    expect(order.map(position)).toEqual(order.map(position).sort((a, b) => a - b));
    expect(position('UNSUPPORTED_MEDIA_TYPE')).toBe(0);
  });

  it('accepts client credentials in the three places, grant parameters as headers, and a password grant body', () => {
    expect(post).toMatchObject({ operationId: 'issueToken', security: CLIENT_AUTHENTICATION });
    expect((post.parameters as Array<{ name?: string }>).map((parameter) => parameter.name).filter(Boolean)).toEqual(['grant_type', 'refresh_token']);
    expect(post.requestBody).toMatchObject({ required: false, content: { 'application/json': { schema: { $ref: '#/components/schemas/PasswordGrantRequest' } } } });
  });

  it('answers 200 with the token response, never cached, in JSON and XML, and documents every error status', () => {
    const responses = post.responses as Record<string, { headers?: object; content?: Record<string, unknown> }>;
    expect(Object.keys(responses['200']!.content!)).toEqual(['application/json', 'application/xml']);
    expect(Object.keys(responses['200']!.headers!)).toEqual(['X-Request-Id', 'Cache-Control', 'Pragma']);
    const statuses = new Set(TOKEN_ERRORS.map((errorCase) => String(catalogue[errorCase.code].status)));
    expect(Object.keys(responses).filter((status) => status !== '200').sort()).toEqual([...statuses].sort());
  });
});
