import type { ErrorCode } from '../../../src/errors/catalogue.js';
import { authorizationServerMetadataEndpoint } from '../../../src/oauth/endpoints/authorization-server-metadata.js';
import { discoveryEndpoint } from '../../../src/oauth/endpoints/discovery.js';
import type { Endpoint } from '../../../src/oauth/endpoints/endpoint.js';
import { introspectEndpoint } from '../../../src/oauth/endpoints/introspect.js';
import { jwksEndpoint } from '../../../src/oauth/endpoints/jwks.js';
import { openApiEndpoint } from '../../../src/oauth/endpoints/openapi.js';
import { revokeEndpoint } from '../../../src/oauth/endpoints/revoke-token.js';
import { tokenEndpoint } from '../../../src/oauth/endpoints/token.js';
import { APP, OTHER_APP, SUSPENDED_APP, SUSPENDED_USER, USER } from '../../helpers/accounts.js';
import { FORM_TYPE, formText, type FormFields } from '../../helpers/forms.js';
import { issueTokens, type TestGateway } from '../../helpers/gateway.js';
import type { OperationKey } from './contract.js';
import { send, type RawRequest, type Reply } from './exchange.js';
import type { ProfileName } from './profiles.js';

/** One request that makes the real gateway give one documented answer. */
export interface Recipe {
  operation: OperationKey;
  status: number;
  errorCode?: ErrorCode;
  profile: ProfileName;
  /** What the request is, for the test's name. */
  what: string;
  /** Headers this particular answer must carry (beyond those the document marks required); each must be documented. */
  expectHeaders?: string[];
  run(gateway: TestGateway): Promise<Reply>;
}

const TOKEN: OperationKey = `POST ${tokenEndpoint.path}`;
const REVOKE: OperationKey = `POST ${revokeEndpoint.path}`;
const INTROSPECT: OperationKey = `POST ${introspectEndpoint.path}`;
const DISCOVERY: OperationKey = `GET ${discoveryEndpoint.path}`;
const METADATA: OperationKey = `GET ${authorizationServerMetadataEndpoint.path}`;
const KEYS: OperationKey = `GET ${jwksEndpoint.path}`;
const OPENAPI: OperationKey = `GET ${openApiEndpoint.path}`;

const JSON_TYPE = { 'content-type': 'application/json' };
const XML = { accept: 'application/xml' };
const basic = (clientId: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` });
const passwordBody = (over: Record<string, unknown> = {}) => JSON.stringify({ username: USER.username, password: USER.password, ...APP, ...over });
const nested = (depth: number) => `{"username":${'['.repeat(depth)}${']'.repeat(depth)}}`;
/** Well-formed (grant id, dot, 256 bits) but never issued. */
const UNKNOWN_REFRESH_TOKEN = `${'A'.repeat(22)}.${'B'.repeat(43)}`;
const TWO_KB_JSON = JSON.stringify({ padding: 'x'.repeat(2_000) });

const token = (over: Partial<RawRequest> = {}): RawRequest => ({ method: 'POST', path: tokenEndpoint.path, headers: JSON_TYPE, body: passwordBody(), ...over });
const revocation = (headers: RawRequest['headers'], body?: string): RawRequest => ({ method: 'POST', path: revokeEndpoint.path, headers, body });
/** A form request (the plain profile allows forms gateway-wide; app-two keeps to the spec's format). */
const form = (path: string, fields: FormFields, headers: RawRequest['headers'] = {}): RawRequest => ({
  method: 'POST',
  path,
  headers: { 'content-type': FORM_TYPE, ...headers },
  body: formText(fields),
});
const basicApp = () => basic(APP.client_id, APP.client_secret);
const introspection = (headers: RawRequest['headers'], body?: string): RawRequest => ({ method: 'POST', path: introspectEndpoint.path, headers, body });

const sendTo = (request: RawRequest | ((gateway: TestGateway) => Promise<RawRequest>)) => async (gateway: TestGateway) =>
  send(gateway.url, typeof request === 'function' ? await request(gateway) : request);

/** The operations, each with the endpoint that serves it and a request it answers with success. */
const OPERATIONS: ReadonlyArray<{ key: OperationKey; endpoint: Endpoint<unknown>; ordinary: RawRequest; otherMethod: string }> = [
  { key: TOKEN, endpoint: tokenEndpoint, ordinary: token(), otherMethod: 'GET' },
  { key: REVOKE, endpoint: revokeEndpoint, ordinary: revocation({ ...APP, token: 'nothing-to-revoke' }), otherMethod: 'GET' },
  { key: INTROSPECT, endpoint: introspectEndpoint, ordinary: introspection({ ...APP, token: 'not-active' }), otherMethod: 'GET' },
  { key: DISCOVERY, endpoint: discoveryEndpoint, ordinary: { method: 'GET', path: discoveryEndpoint.path }, otherMethod: 'POST' },
  { key: METADATA, endpoint: authorizationServerMetadataEndpoint, ordinary: { method: 'GET', path: authorizationServerMetadataEndpoint.path }, otherMethod: 'DELETE' },
  { key: KEYS, endpoint: jwksEndpoint, ordinary: { method: 'GET', path: jwksEndpoint.path }, otherMethod: 'DELETE' },
  { key: OPENAPI, endpoint: openApiEndpoint, ordinary: { method: 'GET', path: openApiEndpoint.path }, otherMethod: 'PUT' },
];

const withHeaders = (request: RawRequest, headers: Record<string, string>): RawRequest => ({ ...request, headers: { ...request.headers, ...headers } });

/**
 * Replaces the endpoint's handler by one that throws, for one exchange: no
 * request makes the gateway fail unexpectedly, so the defect is injected to
 * show what any defect becomes.
 */
async function withDefect(endpoint: Endpoint<unknown>, exchange: () => Promise<Reply>): Promise<Reply> {
  const original = endpoint.serve;
  endpoint.serve = async () => {
    throw new TypeError('a simulated defect');
  };
  try {
    return await exchange();
  } finally {
    endpoint.serve = original;
  }
}

/** What every operation answers alike: policies, the method, a defect. */
function sharedRecipes({ key, endpoint, ordinary, otherMethod }: (typeof OPERATIONS)[number]): Recipe[] {
  return [
    { operation: key, status: 401, errorCode: 'REGEX_THREAT', profile: 'guarded', what: 'an injection in a header a regex-protection policy inspects', run: sendTo(withHeaders(ordinary, { 'x-probe': "' or 1=1 --" })) },
    { operation: key, status: 403, errorCode: 'IP_RANGE_FORBIDDEN', profile: 'guarded', what: 'a client address an ip-range policy denies', run: sendTo(withHeaders(ordinary, { 'x-forwarded-for': '203.0.113.9' })) },
    {
      operation: key,
      status: 401,
      errorCode: 'SPIKE_ARREST',
      profile: 'spike',
      what: 'a second request within the spike-arrest window',
      expectHeaders: ['retry-after'],
      run: async (gateway) => {
        await send(gateway.url, ordinary);
        return send(gateway.url, ordinary);
      },
    },
    { operation: key, status: 403, errorCode: 'TIME_OF_DAY_FORBIDDEN', profile: 'closed', what: 'a request outside the time-of-day windows', run: sendTo(ordinary) },
    { operation: key, status: 405, errorCode: 'METHOD_NOT_ALLOWED', profile: 'plain', what: `${otherMethod}, answered in XML`, run: sendTo(withHeaders({ ...ordinary, method: otherMethod, body: undefined }, XML)) },
    { operation: key, status: 500, errorCode: 'INTERNAL_ERROR', profile: 'plain', what: 'a defect in the handler', run: (gateway) => withDefect(endpoint, () => send(gateway.url, ordinary)) },
  ];
}

/** The public GET paths take no body: only an attached body-inspecting policy reads one. */
function publicBodyRecipes(key: OperationKey, path: string): Recipe[] {
  return [
    { operation: key, status: 200, profile: 'plain', what: 'GET', run: sendTo({ method: 'GET', path }) },
    { operation: key, status: 401, errorCode: 'JSON_THREAT', profile: 'guarded', what: 'a JSON body on the GET nested deeper than a json-threat policy allows', run: sendTo({ method: 'GET', path, headers: JSON_TYPE, body: nested(6) }) },
    { operation: key, status: 413, errorCode: 'PAYLOAD_TOO_LARGE', profile: 'guarded', what: 'a JSON body on the GET over limits.oauth_body_size, read by a json-threat policy', run: sendTo({ method: 'GET', path, headers: JSON_TYPE, body: TWO_KB_JSON }) },
  ];
}

const TOKEN_RECIPES: Recipe[] = [
  { operation: TOKEN, status: 200, profile: 'plain', what: 'password grant (JSON body)', run: sendTo(token()) },
  {
    operation: TOKEN,
    status: 200,
    profile: 'plain',
    what: 'refresh grant (headers, no body)',
    run: sendTo(async (gateway) => {
      const { refresh_token } = await issueTokens(gateway.url);
      return { method: 'POST', path: tokenEndpoint.path, headers: { ...JSON_TYPE, ...APP, grant_type: 'refresh_token', refresh_token } };
    }),
  },
  { operation: TOKEN, status: 200, profile: 'plain', what: 'password grant answered in XML', run: sendTo(token({ headers: { ...JSON_TYPE, ...XML } })) },
  { operation: TOKEN, status: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE', profile: 'plain', what: 'Content-Type text/plain', run: sendTo(token({ headers: { 'content-type': 'text/plain' } })) },
  {
    operation: TOKEN,
    status: 200,
    profile: 'plain',
    what: 'RFC 6749 password grant form with client_secret_basic',
    run: sendTo(form(tokenEndpoint.path, { grant_type: 'password', ...USER }, basicApp())),
  },
  {
    operation: TOKEN,
    status: 200,
    profile: 'plain',
    what: 'RFC 6749 refresh grant form with client_secret_post',
    run: sendTo(async (gateway) => form(tokenEndpoint.path, { grant_type: 'refresh_token', refresh_token: (await issueTokens(gateway.url)).refresh_token, ...APP })),
  },
  {
    operation: TOKEN,
    status: 415,
    errorCode: 'UNSUPPORTED_MEDIA_TYPE',
    profile: 'plain',
    what: 'a form from an app kept to the spec format (apps[].form_encoded: false)',
    run: sendTo(form(tokenEndpoint.path, { grant_type: 'password', ...USER, ...OTHER_APP })),
  },
  { operation: TOKEN, status: 400, errorCode: 'MALFORMED_REQUEST', profile: 'plain', what: 'a form parameter sent twice', run: sendTo(form(tokenEndpoint.path, { ...USER, username: ['a', 'b'], ...APP })) },
  { operation: TOKEN, status: 400, errorCode: 'INVALID_SCOPE', profile: 'plain', what: 'a form asking for a scope', run: sendTo(form(tokenEndpoint.path, { grant_type: 'password', ...USER, ...APP, scope: 'openid' })) },
  { operation: TOKEN, status: 400, errorCode: 'UNSUPPORTED_GRANT_TYPE', profile: 'plain', what: 'grant_type client_credentials', run: sendTo(token({ headers: { ...JSON_TYPE, grant_type: 'client_credentials' } })) },
  { operation: TOKEN, status: 400, errorCode: 'MALFORMED_REQUEST', profile: 'plain', what: 'the grant_type header sent twice', run: sendTo(token({ headers: { ...JSON_TYPE, grant_type: ['password', 'password'] } })) },
  { operation: TOKEN, status: 400, errorCode: 'MALFORMED_JSON_BODY', profile: 'plain', what: 'a body that is not JSON', run: sendTo(token({ body: '{"username":' })) },
  { operation: TOKEN, status: 401, errorCode: 'JSON_THREAT', profile: 'plain', what: 'a body nested deeper than limits.json_depth', run: sendTo(token({ body: nested(40) })) },
  {
    operation: TOKEN,
    status: 400,
    errorCode: 'CLIENT_CREDENTIALS_REQUIRED',
    profile: 'plain',
    what: 'no client credentials anywhere, answered in XML',
    run: sendTo(token({ headers: { ...JSON_TYPE, ...XML }, body: JSON.stringify(USER) })),
  },
  { operation: TOKEN, status: 400, errorCode: 'CLIENT_CREDENTIALS_CONFLICT', profile: 'plain', what: 'client_id in the body and another in a header', run: sendTo(token({ headers: { ...JSON_TYPE, client_id: OTHER_APP.client_id } })) },
  { operation: TOKEN, status: 400, errorCode: 'USER_CREDENTIALS_REQUIRED', profile: 'plain', what: 'no password', run: sendTo(token({ body: JSON.stringify({ username: USER.username, ...APP }) })) },
  {
    operation: TOKEN,
    status: 400,
    errorCode: 'REFRESH_TOKEN_REQUIRED',
    profile: 'plain',
    what: 'refresh grant without refresh_token',
    run: sendTo({ method: 'POST', path: tokenEndpoint.path, headers: { ...JSON_TYPE, ...APP, grant_type: 'refresh_token' } }),
  },
  {
    operation: TOKEN,
    status: 400,
    errorCode: 'INVALID_REFRESH_TOKEN',
    profile: 'plain',
    what: 'a refresh token never issued',
    run: sendTo({ method: 'POST', path: tokenEndpoint.path, headers: { ...JSON_TYPE, ...APP, grant_type: 'refresh_token', refresh_token: UNKNOWN_REFRESH_TOKEN } }),
  },
  {
    operation: TOKEN,
    status: 401,
    errorCode: 'INVALID_CLIENT_CREDENTIALS',
    profile: 'plain',
    what: 'a wrong client secret with HTTP Basic',
    expectHeaders: ['www-authenticate'],
    run: sendTo(token({ headers: { ...JSON_TYPE, ...basic(APP.client_id, 'not-the-secret') }, body: JSON.stringify(USER) })),
  },
  { operation: TOKEN, status: 401, errorCode: 'CLIENT_ACCOUNT_INVALID_STATE', profile: 'plain', what: 'a suspended app', run: sendTo(token({ body: passwordBody(SUSPENDED_APP) })) },
  { operation: TOKEN, status: 401, errorCode: 'INVALID_USER_CREDENTIALS', profile: 'plain', what: 'a wrong password', run: sendTo(token({ body: passwordBody({ password: 'not-the-password' }) })) },
  { operation: TOKEN, status: 401, errorCode: 'USER_ACCOUNT_INVALID_STATE', profile: 'plain', what: 'a suspended user', run: sendTo(token({ body: passwordBody(SUSPENDED_USER) })) },
  {
    operation: TOKEN,
    status: 401,
    errorCode: 'LOGIN_LOCKED',
    profile: 'plain',
    what: 'a fourth attempt after three failed passwords (brute_force threshold 3)',
    run: async (gateway) => {
      const guess = token({ body: passwordBody({ username: 'brute-forced', password: 'guess' }) });
      for (let attempt = 0; attempt < 3; attempt++) await send(gateway.url, guess);
      return send(gateway.url, guess);
    },
  },
  { operation: TOKEN, status: 413, errorCode: 'PAYLOAD_TOO_LARGE', profile: 'plain', what: 'a body over limits.oauth_body_size', run: sendTo(token({ body: passwordBody({ padding: 'x'.repeat(2_000) }) })) },
  { operation: TOKEN, status: 503, errorCode: 'SERVICE_UNAVAILABLE', profile: 'store-down', what: 'a password grant while Redis is down', run: sendTo(token()) },
];

const REVOKE_RECIPES: Recipe[] = [
  {
    operation: REVOKE,
    status: 200,
    profile: 'plain',
    what: 'revoking an access token',
    run: sendTo(async (gateway) => revocation({ ...APP, token: (await issueTokens(gateway.url)).access_token })),
  },
  { operation: REVOKE, status: 200, profile: 'plain', what: 'revoking an unknown token, answered in XML', run: sendTo(revocation({ ...APP, ...XML, token: 'nothing-to-revoke' })) },
  {
    operation: REVOKE,
    status: 200,
    profile: 'plain',
    what: 'RFC 7009 form revoking a refresh token, with client_secret_basic',
    run: sendTo(async (gateway) => form(revokeEndpoint.path, { token: (await issueTokens(gateway.url)).refresh_token, token_type_hint: 'refresh_token' }, basicApp())),
  },
  { operation: REVOKE, status: 400, errorCode: 'MALFORMED_REQUEST', profile: 'plain', what: 'a form naming two tokens', run: sendTo(form(revokeEndpoint.path, { token: ['a', 'b'] }, basicApp())) },
  { operation: REVOKE, status: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE', profile: 'plain', what: 'a gzip-coded JSON body', run: sendTo(revocation({ ...APP, ...JSON_TYPE, 'content-encoding': 'gzip', token: 'a' }, '{}')) },
  { operation: REVOKE, status: 400, errorCode: 'MALFORMED_REQUEST', profile: 'plain', what: 'the token header sent twice', run: sendTo(revocation({ ...APP, token: ['a-token', 'another-token'] })) },
  { operation: REVOKE, status: 400, errorCode: 'MALFORMED_JSON_BODY', profile: 'plain', what: 'a JSON body that does not parse', run: sendTo(revocation({ ...APP, ...JSON_TYPE, token: 'a-token' }, '{')) },
  { operation: REVOKE, status: 401, errorCode: 'JSON_THREAT', profile: 'plain', what: 'a JSON body nested deeper than limits.json_depth', run: sendTo(revocation({ ...APP, ...JSON_TYPE, token: 'a-token' }, nested(40))) },
  { operation: REVOKE, status: 400, errorCode: 'CLIENT_CREDENTIALS_REQUIRED', profile: 'plain', what: 'no client credentials', run: sendTo(revocation({ token: 'a-token' })) },
  {
    operation: REVOKE,
    status: 400,
    errorCode: 'CLIENT_CREDENTIALS_CONFLICT',
    profile: 'plain',
    what: 'client credentials in headers and other ones with HTTP Basic',
    run: sendTo(revocation({ ...APP, ...basic(OTHER_APP.client_id, OTHER_APP.client_secret), token: 'a-token' })),
  },
  { operation: REVOKE, status: 400, errorCode: 'TOKEN_REQUIRED', profile: 'plain', what: 'no token header', run: sendTo(revocation({ ...APP })) },
  { operation: REVOKE, status: 401, errorCode: 'INVALID_CLIENT_CREDENTIALS', profile: 'plain', what: 'a wrong client secret in the headers', run: sendTo(revocation({ ...APP, client_secret: 'not-the-secret', token: 'a-token' })) },
  { operation: REVOKE, status: 401, errorCode: 'CLIENT_ACCOUNT_INVALID_STATE', profile: 'plain', what: 'a suspended app', run: sendTo(revocation({ ...SUSPENDED_APP, token: 'a-token' })) },
  {
    operation: REVOKE,
    status: 400,
    errorCode: 'TOKEN_NOT_ISSUED_TO_CLIENT',
    profile: 'plain',
    what: "another client's access token",
    run: sendTo(async (gateway) => revocation({ ...OTHER_APP, token: (await issueTokens(gateway.url)).access_token })),
  },
  { operation: REVOKE, status: 413, errorCode: 'PAYLOAD_TOO_LARGE', profile: 'plain', what: 'a body over limits.oauth_body_size', run: sendTo(revocation({ ...APP, token: 'a-token', 'content-type': 'text/plain' }, 'x'.repeat(2_000))) },
  {
    operation: REVOKE,
    status: 503,
    errorCode: 'SERVICE_UNAVAILABLE',
    profile: 'store-down',
    what: 'revoking an access token before the keys that verify it are loaded',
    run: sendTo(revocation({ ...APP, token: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' })),
  },
];

const INTROSPECT_RECIPES: Recipe[] = [
  {
    operation: INTROSPECT,
    status: 200,
    profile: 'plain',
    what: 'RFC 7662 form with client_secret_basic: the own access token, active',
    run: sendTo(async (gateway) => form(introspectEndpoint.path, { token: (await issueTokens(gateway.url)).access_token, token_type_hint: 'access_token' }, basicApp())),
  },
  { operation: INTROSPECT, status: 200, profile: 'plain', what: "the spec's style (headers), an unknown token: active false", run: sendTo(introspection({ ...APP, token: 'not-a-token' })) },
  { operation: INTROSPECT, status: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE', profile: 'plain', what: 'a text/plain body', run: sendTo(introspection({ ...APP, 'content-type': 'text/plain' }, 'token=a')) },
  { operation: INTROSPECT, status: 400, errorCode: 'MALFORMED_REQUEST', profile: 'plain', what: 'a form naming two tokens', run: sendTo(form(introspectEndpoint.path, { token: ['a', 'b'] }, basicApp())) },
  { operation: INTROSPECT, status: 400, errorCode: 'MALFORMED_JSON_BODY', profile: 'plain', what: 'a JSON body that does not parse', run: sendTo(introspection({ ...APP, ...JSON_TYPE, token: 'a' }, '{')) },
  { operation: INTROSPECT, status: 401, errorCode: 'JSON_THREAT', profile: 'plain', what: 'a JSON body nested deeper than limits.json_depth', run: sendTo(introspection({ ...APP, ...JSON_TYPE, token: 'a' }, nested(40))) },
  { operation: INTROSPECT, status: 400, errorCode: 'CLIENT_CREDENTIALS_REQUIRED', profile: 'plain', what: 'a form without client credentials', run: sendTo(form(introspectEndpoint.path, { token: 'a' })) },
  {
    operation: INTROSPECT,
    status: 400,
    errorCode: 'CLIENT_CREDENTIALS_CONFLICT',
    profile: 'plain',
    what: 'client_secret_post and HTTP Basic naming different apps',
    run: sendTo(form(introspectEndpoint.path, { token: 'a', ...OTHER_APP }, basicApp())),
  },
  { operation: INTROSPECT, status: 400, errorCode: 'TOKEN_REQUIRED', profile: 'plain', what: 'a form without token', run: sendTo(form(introspectEndpoint.path, { token_type_hint: 'access_token' }, basicApp())) },
  {
    operation: INTROSPECT,
    status: 401,
    errorCode: 'INVALID_CLIENT_CREDENTIALS',
    profile: 'plain',
    what: 'a wrong client secret with HTTP Basic',
    expectHeaders: ['www-authenticate'],
    run: sendTo(form(introspectEndpoint.path, { token: 'a' }, basic(APP.client_id, 'not-the-secret'))),
  },
  { operation: INTROSPECT, status: 401, errorCode: 'CLIENT_ACCOUNT_INVALID_STATE', profile: 'plain', what: 'a suspended app', run: sendTo(form(introspectEndpoint.path, { token: 'a', ...SUSPENDED_APP })) },
  { operation: INTROSPECT, status: 413, errorCode: 'PAYLOAD_TOO_LARGE', profile: 'plain', what: 'a form over limits.oauth_body_size', run: sendTo(form(introspectEndpoint.path, { token: 'a', padding: 'x'.repeat(2_000) }, basicApp())) },
  {
    operation: INTROSPECT,
    status: 503,
    errorCode: 'SERVICE_UNAVAILABLE',
    profile: 'store-down',
    what: 'introspecting an access token before the keys that verify it are loaded',
    run: sendTo(introspection({ ...APP, token: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' })),
  },
];

const PUBLIC_RECIPES: Recipe[] = [
  ...publicBodyRecipes(DISCOVERY, discoveryEndpoint.path),
  ...publicBodyRecipes(METADATA, authorizationServerMetadataEndpoint.path),
  ...publicBodyRecipes(KEYS, jwksEndpoint.path),
  ...publicBodyRecipes(OPENAPI, openApiEndpoint.path),
  { operation: KEYS, status: 503, errorCode: 'SERVICE_UNAVAILABLE', profile: 'store-down', what: 'the key ring not loaded (Redis down since start)', run: sendTo({ method: 'GET', path: jwksEndpoint.path }) },
];

/** One recipe per (operation, status, errorCode) the document lists, and nothing it does not. */
export const RECIPES: readonly Recipe[] = [...TOKEN_RECIPES, ...REVOKE_RECIPES, ...INTROSPECT_RECIPES, ...PUBLIC_RECIPES, ...OPERATIONS.flatMap(sharedRecipes)];

export const recipeKey = (operation: OperationKey, status: number, errorCode: string | undefined): string => `${operation} ${status} ${errorCode ?? '(success)'}`;
