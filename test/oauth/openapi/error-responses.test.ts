import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../src/errors/catalogue.js';
import { errorCodeSchema, errorCodeSchemaName, errorExamples, errorResponses } from '../../../src/oauth/openapi/error-responses.js';

const CASES = [
  { code: 'INVALID_CLIENT_CREDENTIALS', when: 'wrong secret' },
  { code: 'MALFORMED_JSON_BODY', when: 'not an object' },
  { code: 'USER_CREDENTIALS_REQUIRED', when: 'no | password' },
  { code: 'SPIKE_ARREST', when: 'too fast' },
  { code: 'METHOD_NOT_ALLOWED', when: 'GET' },
  { code: 'SERVICE_UNAVAILABLE', when: 'redis down' },
] as const;

describe('error responses in the OpenAPI document, generated from the catalogue', () => {
  const responses = errorResponses(CASES, { oauth: true, methods: ['POST'] });

  it('groups the cases by their catalogue status, in order', () => {
    expect(Object.keys(responses)).toEqual(['400', '401', '405', '503']);
    expect(responses['400']!['x-error-codes']).toEqual(['MALFORMED_JSON_BODY', 'USER_CREDENTIALS_REQUIRED']);
    expect(responses['401']!['x-error-codes']).toEqual(['INVALID_CLIENT_CREDENTIALS', 'SPIKE_ARREST']);
  });

  it('admits exactly the listed codes, over the OAuth envelope on OAuth endpoints', () => {
    const schema = (responses['400']!.content as Record<string, { schema: unknown }>)['application/json']!.schema;
    expect(schema).toEqual({
      allOf: [{ $ref: '#/components/schemas/OAuthErrorEnvelope' }],
      oneOf: [{ $ref: '#/components/schemas/Error.MALFORMED_JSON_BODY' }, { $ref: '#/components/schemas/Error.USER_CREDENTIALS_REQUIRED' }],
    });
    const plain = errorResponses(CASES, { oauth: false, methods: ['GET'] });
    expect(((plain['400']!.content as Record<string, { schema: { allOf: unknown } }>)['application/json']!.schema).allOf).toEqual([{ $ref: '#/components/schemas/ErrorEnvelope' }]);
  });

  it('describes each status as a table of code, catalogue message and condition (pipes escaped)', () => {
    const description = responses['400']!.description as string;
    expect(description.split('\n').slice(0, 4)).toEqual(['Bad Request: one of these `errorCode`s.', '', '| errorCode | message | when |', '|---|---|---|']);
    expect(description).toContain(`| \`USER_CREDENTIALS_REQUIRED\` | ${catalogue.USER_CREDENTIALS_REQUIRED.message.replace(/\|/g, '\\|')} | no \\| password |`);
  });

  it('documents the headers each code comes with, where the gateway sends them', () => {
    const headers = (status: string) => Object.keys(responses[status]!.headers as object).sort();
    expect(headers('400')).toEqual(['Cache-Control', 'X-Request-Id']);
    expect(headers('401')).toEqual(['Cache-Control', 'Retry-After', 'WWW-Authenticate', 'X-Request-Id']);
    expect((responses['405']!.headers as Record<string, { schema: unknown }>).Allow!.schema).toEqual({ type: 'string', const: 'POST' });
    expect(headers('503')).toContain('Retry-After');
    const plain = errorResponses([{ code: 'INVALID_CLIENT_CREDENTIALS', when: 'x' }], { oauth: false, methods: ['GET'] });
    expect(Object.keys(plain['401']!.headers as object)).not.toContain('WWW-Authenticate');
  });

  it("pins one code's errorCode, errorType, message and RFC 6749 members in its schema", () => {
    const entry = catalogue.INVALID_USER_CREDENTIALS;
    expect(errorCodeSchemaName('INVALID_USER_CREDENTIALS')).toBe('Error.INVALID_USER_CREDENTIALS');
    expect(errorCodeSchema('INVALID_USER_CREDENTIALS')).toMatchObject({
      title: 'INVALID_USER_CREDENTIALS',
      properties: {
        errors: { items: { properties: { errorCode: { const: 'INVALID_USER_CREDENTIALS' }, errorType: { const: entry.errorType }, message: { const: entry.message } } } },
        error: { const: entry.oauthError },
        error_description: { const: entry.message },
      },
    });
  });

  it("renders the examples with the gateway's own envelope, in JSON and XML, per flavour", () => {
    const examples = errorExamples([{ cases: [{ code: 'TOKEN_REQUIRED', when: 'x' }], oauth: true }, { cases: [{ code: 'TOKEN_REQUIRED', when: 'x' }], oauth: false }]);
    expect(Object.keys(examples).sort()).toEqual(['TOKEN_REQUIRED.json', 'TOKEN_REQUIRED.oauth.json', 'TOKEN_REQUIRED.oauth.xml', 'TOKEN_REQUIRED.xml']);
    expect(examples['TOKEN_REQUIRED.oauth.json']!.value).toMatchObject({ success: false, error: catalogue.TOKEN_REQUIRED.oauthError });
    expect(examples['TOKEN_REQUIRED.json']!.value).not.toHaveProperty('error');
    expect(examples['TOKEN_REQUIRED.xml']!.value).toContain('<errorCode>TOKEN_REQUIRED</errorCode>');
  });
});
