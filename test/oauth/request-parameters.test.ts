import { describe, expect, it } from 'vitest';
import type { GatewayContext } from '../../src/context.js';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { formOrSpecParameters, formParameters, optionalBodyParameters, permittedForm, specParameters, type OAuthParameters } from '../../src/oauth/request-parameters.js';
import { fakeExchange } from '../helpers/exchange.js';
import { basicAuth, FORM_TYPE } from '../helpers/forms.js';

/**
 * A generation with forms on or off gateway-wide (oauth.form_encoded) and
 * apps that may override it (apps[].form_encoded), as accounts.yaml says.
 */
function contextWith(formEncoded: boolean, apps: Record<string, boolean | undefined> = {}): GatewayContext {
  const accounts = Object.entries(apps).map(([client_id, form_encoded]) => ({ client_id, form_encoded }));
  return {
    config: { oauth: { form_encoded: formEncoded }, limits: { json_depth: 8 } },
    accounts: { apps: accounts, findApp: (id: string) => accounts.find((app) => app.client_id === id) },
  } as unknown as GatewayContext;
}

/** The error code, or what `read` returned. */
async function outcome<T>(read: () => T | Promise<T>): Promise<T | string> {
  try {
    return await read();
  } catch (error) {
    if (isGatewayError(error)) return error.code;
    throw error;
  }
}

const formRequest = (body: string, headers: Record<string, string> = {}) => fakeExchange({ body, headers: { 'content-type': FORM_TYPE, ...headers } });
const summary = (parameters: OAuthParameters | string) =>
  typeof parameters === 'string' ? parameters : { format: parameters.format, body: parameters.body === undefined ? undefined : { ...parameters.body } };

describe('oauth/request-parameters: where each parameter of a request comes from', () => {
  it.each<[string, Record<string, string | string[]>, string | undefined]>([
    // The spec's format: grant_type, refresh_token, token are headers (SPEC 4.3 to 4.5).
    ['a header', { token: 'abc' }, 'abc'],
    ['no header', {}, undefined],
    ['a header sent twice', { token: ['a', 'b'] }, 'MALFORMED_REQUEST'],
  ])('specParameters reads %s', async (_what, headers, expected) => {
    const { req } = fakeExchange({ headers });
    expect(await outcome(() => specParameters(req, 'none', undefined).get('token'))).toBe(expected);
  });

  it("specParameters never reads a JSON body's member of a parameter's name, as the spec's clients rely on", () => {
    const { req } = fakeExchange({ headers: {} });
    expect(specParameters(req, 'json', { token: 'from-the-body', grant_type: 'password' }).get('token')).toBeUndefined();
  });

  it.each<[string, string, Record<string, string | string[]>, string | undefined]>([
    // [case, form, headers, what get('token') answers]
    ['in the form only', 'token=abc', {}, 'abc'],
    ['in a header only', '', { token: 'abc' }, 'abc'],
    ['in both, agreeing', 'token=abc', { token: 'abc' }, 'abc'],
    ['in both, disagreeing', 'token=abc', { token: 'xyz' }, 'MALFORMED_REQUEST'],
    ['blank in the form, in a header', 'token=', { token: 'abc' }, 'abc'],
    ['blank in the header, in the form', 'token=abc', { token: '' }, 'abc'],
    ['blank in both', 'token=+', { token: ' ' }, undefined],
    ['padded with spaces, agreeing once trimmed', 'token=+abc+', { token: 'abc' }, 'abc'],
    ['percent-encoded in the form, plain in the header', 'token=a%2Fb', { token: 'a/b' }, 'a/b'],
    ['nowhere', 'other=1', {}, undefined],
    ['twice in the headers', 'token=abc', { token: ['abc', 'abc'] }, 'MALFORMED_REQUEST'],
  ])('formParameters: a parameter %s', async (_what, form, headers, expected) => {
    const { req } = fakeExchange({ headers });
    expect(await outcome(() => formParameters(req, new URLSearchParams(form)).get('token'))).toBe(expected);
  });

  it('formParameters refuses a form that repeats any parameter, before anything is read from it (RFC 6749 3.1)', async () => {
    const { req } = fakeExchange();
    expect(await outcome(() => formParameters(req, new URLSearchParams('token=a&token=b')))).toBe('MALFORMED_REQUEST');
    expect(await outcome(() => formParameters(req, new URLSearchParams('token=a&client_secret=x&client_secret=x')))).toBe('MALFORMED_REQUEST');
  });

  it("formParameters' body is the form's members, each once", () => {
    const { req } = fakeExchange();
    expect(summary(formParameters(req, new URLSearchParams('grant_type=password&username=alice')))).toEqual({ format: 'form', body: { grant_type: 'password', username: 'alice' } });
  });

  it.each<[string, GatewayContext, string, Record<string, string>, string | undefined]>([
    // [case, generation, body, headers, the form's token or undefined (not served as a form)]
    ['forms on, no app named', contextWith(true), 'token=t', {}, 't'],
    ['forms on, an app that may use them', contextWith(true, { 'app-one': undefined }), 'token=t&client_id=app-one', {}, 't'],
    ['forms on, an app that may not (its own form_encoded: false)', contextWith(true, { 'app-one': false }), 'token=t&client_id=app-one', {}, undefined],
    ['forms off, one app allowed, named in the form', contextWith(false, { 'app-one': true, 'app-two': undefined }), 'token=t&client_id=app-one', {}, 't'],
    ['forms off, one app allowed, named in HTTP Basic', contextWith(false, { 'app-one': true, 'app-two': undefined }), 'token=t', basicAuth('app-one', 's'), 't'],
    ['forms off, one app allowed, another named', contextWith(false, { 'app-one': true, 'app-two': undefined }), 'token=t&client_id=app-two', {}, undefined],
    ['forms off, the allowed app in the form and another in Basic', contextWith(false, { 'app-one': true, 'app-two': undefined }), 'token=t&client_id=app-one', basicAuth('app-two', 's'), undefined],
    ['forms off, one app allowed, nobody named', contextWith(false, { 'app-one': true }), 'token=t', {}, undefined],
    ['forms on, a form in another charset', contextWith(true), 'token=t', { 'content-type': `${FORM_TYPE}; charset=iso-8859-1` }, undefined],
    ['forms on, a JSON body', contextWith(true), '{"token":"t"}', { 'content-type': 'application/json' }, undefined],
  ])('permittedForm: %s', async (_what, ctx, body, headers, token) => {
    const form = await permittedForm(ctx, formRequest(body, headers));
    expect(form?.get('token')).toBe(token);
  });

  it('permittedForm leaves the body unread when no app may use forms: the answer comes from the headers alone', async () => {
    const exchange = formRequest('token=t');
    expect(await permittedForm(contextWith(false, { 'app-one': false }), exchange)).toBeUndefined();
    expect(exchange.body.isBuffered).toBe(false);
  });

  it.each<[string, GatewayContext, Record<string, string>, string, unknown]>([
    // revocation: a form it may serve, else a JSON body, else none (any other body is read and discarded).
    ['a permitted form', contextWith(true), { 'content-type': FORM_TYPE }, 'token=t&client_id=a', { format: 'form', body: { token: 't', client_id: 'a' } }],
    ['a form nobody may send: read as no body', contextWith(false), { 'content-type': FORM_TYPE }, 'token=t', { format: 'none', body: undefined }],
    ['a JSON body', contextWith(false), { 'content-type': 'application/json' }, '{"client_id":"a"}', { format: 'json', body: { client_id: 'a' } }],
    ['malformed JSON', contextWith(false), { 'content-type': 'application/json' }, '[]', 'MALFORMED_JSON_BODY'],
    ['a text body', contextWith(true), { 'content-type': 'text/plain' }, 'token=t', { format: 'none', body: undefined }],
    ['no body and no Content-Type', contextWith(true), {}, '', { format: 'none', body: undefined }],
    ['a permitted form that repeats a name', contextWith(true), { 'content-type': FORM_TYPE }, 'token=a&token=b', 'MALFORMED_REQUEST'],
  ])('optionalBodyParameters reads %s', async (_what, ctx, headers, body, expected) => {
    const exchange = fakeExchange({ headers, body });
    expect(summary(await outcome(() => optionalBodyParameters(ctx, exchange)))).toEqual(expected);
  });

  it('optionalBodyParameters drains a body it does not read, so keep-alive stays usable', async () => {
    const exchange = fakeExchange({ headers: { 'content-type': 'text/plain' }, body: 'whatever' });
    await optionalBodyParameters(contextWith(false), exchange);
    expect(exchange.body.contents?.toString()).toBe('whatever');
  });

  it.each<[string, Record<string, string>, string, unknown]>([
    // introspection: RFC 7662's form always (forms off or not), the spec's style beside it, 415 for anything else.
    ['a form, with forms off everywhere', { 'content-type': FORM_TYPE }, 'token=t', { format: 'form', body: { token: 't' } }],
    ['a form with a UTF-8 charset', { 'content-type': `${FORM_TYPE}; charset=utf-8` }, 'token=t', { format: 'form', body: { token: 't' } }],
    ['a form in another charset', { 'content-type': `${FORM_TYPE}; charset=iso-8859-1` }, 'token=t', 'UNSUPPORTED_MEDIA_TYPE'],
    ['a form that repeats a name', { 'content-type': FORM_TYPE }, 'token=a&token=b', 'MALFORMED_REQUEST'],
    ['a JSON body', { 'content-type': 'application/json' }, '{"client_id":"a"}', { format: 'json', body: { client_id: 'a' } }],
    ['a text body', { 'content-type': 'text/plain' }, 'token=t', 'UNSUPPORTED_MEDIA_TYPE'],
    ['multipart/form-data', { 'content-type': 'multipart/form-data; boundary=x' }, '', 'UNSUPPORTED_MEDIA_TYPE'],
    ['no body and no Content-Type', {}, '', { format: 'none', body: undefined }],
  ])('formOrSpecParameters reads %s', async (_what, headers, body, expected) => {
    const exchange = fakeExchange({ headers, body });
    expect(summary(await outcome(() => formOrSpecParameters(contextWith(false), exchange)))).toEqual(expected);
  });
});
