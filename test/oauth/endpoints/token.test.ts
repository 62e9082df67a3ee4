import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, errorOf, passwordGrant, type TestGateway } from '../../helpers/gateway.js';

/** The endpoint itself, whatever the grant: methods, media types, the grant_type switch, XML. */
describe('POST /oauth2/v1/token (SPEC 4.3, 4.4)', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  it('answers in XML with the same fields when Accept asks for it', async () => {
    const response = await passwordGrant(tg.url, {}, { accept: 'application/xml' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/xml');
    const xml = await response.text();
    for (const field of ['issued_at', 'expires_in', 'token_type', 'access_token', 'refresh_token']) expect(xml).toMatch(new RegExp(`<${field}>[^<]+</${field}>`));
    expect(xml).toContain('<token_type>Bearer</token_type>');
  });

  it('accepts a charset parameter on the content type and grant_type: password', async () => {
    const response = await passwordGrant(tg.url, {}, { 'content-type': 'application/json; charset=utf-8', grant_type: 'password' });
    expect(response.status).toBe(200);
  });

  // SPEC section 7 rows of the endpoint itself.
  const ROWS: Array<[string, Record<string, unknown>, Record<string, string>, number, string, string, string]> = [
    ['unsupported grant_type header', {}, { grant_type: 'client_credentials' }, 400, 'UNSUPPORTED_GRANT_TYPE', 'unsupported_grant_type', "The 'grant_type' must be 'password' or 'refresh_token'"],
  ];

  it.each(ROWS)('%s -> %i %s', async (_case, body, headers, status, errorCode, oauthError, message) => {
    const { status: got, body: envelope } = await errorOf(await passwordGrant(tg.url, body, headers));
    expect(got).toBe(status);
    expect(envelope).toMatchObject({
      success: false,
      errors: [{ errorCode, errorType: status === 400 ? 'Bad Request' : 'Unauthorized', message }],
      error: oauthError,
      error_description: message,
    });
    expect(envelope.requestId).toBeTruthy();
  });

  it.each(['GET', 'PUT', 'DELETE', 'PATCH'])('answers %s with 405 and Allow: POST', async (method) => {
    const response = await fetch(`${tg.url}/oauth2/v1/token`, { method });
    const { status, errorCode, body } = await errorOf(response);
    expect({ status, errorCode }).toEqual({ status: 405, errorCode: 'METHOD_NOT_ALLOWED' });
    expect(body.errors[0]!.message).toBe('The requested method is not allowed');
    expect(response.headers.get('allow')).toBe('POST');
  });

  it.each([
    ['missing', undefined],
    ['form-encoded', 'application/x-www-form-urlencoded'],
    ['XML', 'application/xml'],
    ['text', 'text/plain'],
  ])('answers a %s Content-Type with 415', async (_case, contentType) => {
    const response = await fetch(`${tg.url}/oauth2/v1/token`, {
      method: 'POST',
      headers: contentType ? { 'content-type': contentType } : {},
      body: contentType ? 'x' : undefined,
    });
    const { status, errorCode, body } = await errorOf(response);
    expect({ status, errorCode }).toEqual({ status: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(body.errors[0]!.message).toBe('Content-Type header is unsupported');
  });

  it.each([
    ['invalid JSON', '{"username": '],
    ['a JSON array', '[1,2]'],
    ['a JSON string', '"hello"'],
    ['null', 'null'],
  ])('answers %s with 400, never 500', async (_case, text) => {
    const response = await fetch(`${tg.url}/oauth2/v1/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    expect(await errorOf(response)).toMatchObject({ status: 400, errorCode: 'MALFORMED_JSON_BODY' });
  });

  it('renders errors in XML when the client asked for XML', async () => {
    const response = await passwordGrant(tg.url, { password: 'wrong' }, { accept: 'application/xml' });
    expect(response.status).toBe(401);
    const xml = await response.text();
    expect(xml).toContain('<errorCode>INVALID_USER_CREDENTIALS</errorCode>');
    expect(xml).toContain('<message>Access is denied due to invalid username or password</message>');
  });
});
