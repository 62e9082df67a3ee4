import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../src/errors/catalogue.js';
import { FORM_MEDIA_TYPE } from '../../../src/http/form-body.js';
import { INTROSPECT_ERRORS, introspectPathItem } from '../../../src/oauth/openapi/introspect-operation.js';
import { CLIENT_AUTHENTICATION } from '../../../src/oauth/openapi/security.js';

describe('POST /oauth2/v1/introspect in the OpenAPI document (RFC 7662)', () => {
  const post = introspectPathItem().post as Record<string, unknown>;
  const codes = INTROSPECT_ERRORS.map((errorCase) => errorCase.code);

  it('lists each error code once, every one a catalogue code', () => {
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(catalogue).toHaveProperty(code);
  });

  it('lists the checks in the order they run: the media type, the request\'s shape, the client, then the app\'s state', () => {
    const position = (code: string) => codes.indexOf(code as (typeof codes)[number]);
    const order = ['UNSUPPORTED_MEDIA_TYPE', 'MALFORMED_REQUEST', 'CLIENT_CREDENTIALS_REQUIRED', 'TOKEN_REQUIRED', 'INVALID_CLIENT_CREDENTIALS', 'CLIENT_ACCOUNT_INVALID_STATE'];
    expect(order.map(position)).toEqual(order.map(position).sort((a, b) => a - b));
    expect(position('UNSUPPORTED_MEDIA_TYPE')).toBe(0);
  });

  it('has no error for a token that is not active: an expired, revoked, forged or another client\'s token is 200 {"active": false} (RFC 7662 2.2)', () => {
    for (const code of ['TOKEN_NOT_ISSUED_TO_CLIENT', 'ACCESS_TOKEN_INVALID', 'INVALID_REFRESH_TOKEN'] as const) expect(codes).not.toContain(code);
    const responses = post.responses as Record<string, { content: Record<string, { examples: Record<string, { value: unknown }> }> }>;
    expect(responses['200']!.content['application/json']!.examples.inactive!.value).toEqual({ active: false });
  });

  it('says a store or key outage is a 503, never a false active: false', () => {
    expect(INTROSPECT_ERRORS.find((errorCase) => errorCase.code === 'SERVICE_UNAVAILABLE')?.when).toMatch(/never a false `active: false`/);
  });

  it("takes RFC 7662's form (always, forms switch or not), the spec's token header, or a JSON body of client credentials; no body is required", () => {
    expect(post).toMatchObject({ operationId: 'introspectToken', security: CLIENT_AUTHENTICATION });
    expect(post.requestBody).toMatchObject({ required: false });
    expect(Object.keys((post.requestBody as { content: object }).content)).toEqual([FORM_MEDIA_TYPE, 'application/json']);
    const token = (post.parameters as Array<{ name?: string; in?: string; required?: boolean }>).find((parameter) => parameter.name === 'token');
    expect(token).toMatchObject({ in: 'header', required: false });
  });

  it('answers 200 in JSON only (RFC 7662 defines no other format), never cached, and documents every status its errors have', () => {
    const responses = post.responses as Record<string, { headers?: object; content?: Record<string, unknown> }>;
    expect(Object.keys(responses['200']!.content!)).toEqual(['application/json']);
    expect(Object.keys(responses['200']!.headers!)).toEqual(['X-Request-Id', 'Cache-Control']);
    const statuses = new Set(codes.map((code) => String(catalogue[code].status)));
    expect(Object.keys(responses).filter((status) => status !== '200').sort()).toEqual([...statuses].sort());
  });
});
