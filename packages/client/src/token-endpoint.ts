import { TokenGatewayError, TokenRequestError, type ErrorEnvelope } from './errors.js';
import { CLIENT_ID_HEADER, CLIENT_SECRET_HEADER, GRANT_TYPE_HEADER, REFRESH_TOKEN_HEADER, REVOKE_PATH, TOKEN_HEADER, TOKEN_PATH } from './paths.js';

/** What `globalThis.fetch` is; any implementation with this shape will do (undici, node-fetch 3, a test wrapper). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** How to reach the gateway's OAuth endpoints, and as which application. */
export interface TokenEndpointContext {
  fetch: FetchLike;
  /** The gateway's base URL without a trailing slash (SPEC 4: every path is relative to it). */
  baseUrl: string;
  timeoutMs: number;
  clientId: string;
  clientSecret: string;
}

/** A token response (SPEC 2.1), checked and converted. */
export interface IssuedTokens {
  accessToken: string;
  /** Absent only if a server chose not to rotate it (RFC 6749 6); this gateway always sends one. */
  refreshToken: string | undefined;
  /** SPEC 2.1 expires_in: lifetime counted from the time of the request. */
  lifetimeMs: number;
  /** SPEC 2.1 issued_at, on the gateway's clock (epoch milliseconds), for information only. */
  issuedAt: number | undefined;
}

// The gateway answers in XML when asked to (SPEC 4.3); the client only reads JSON.
const JSON_HEADERS = { accept: 'application/json', 'content-type': 'application/json' };

/** SPEC 4.3: the password grant is a JSON body; `grant_type` may be omitted. */
export async function requestPasswordGrant(ctx: TokenEndpointContext, user: { username: string; password: string }): Promise<IssuedTokens> {
  const body = JSON.stringify({ username: user.username, password: user.password, client_id: ctx.clientId, client_secret: ctx.clientSecret });
  return readTokenResponse(await post(ctx, TOKEN_PATH, JSON_HEADERS, body));
}

/** SPEC 4.4: every parameter of the refresh grant is a header, and there is no body. */
export async function requestRefreshGrant(ctx: TokenEndpointContext, refreshToken: string): Promise<IssuedTokens> {
  const headers = { ...JSON_HEADERS, ...clientHeaders(ctx), [GRANT_TYPE_HEADER]: 'refresh_token', [REFRESH_TOKEN_HEADER]: refreshToken };
  return readTokenResponse(await post(ctx, TOKEN_PATH, headers));
}

/** SPEC 4.5: revokes a refresh token (and with it its whole grant) or a single access token. */
export async function requestRevocation(ctx: TokenEndpointContext, token: string): Promise<void> {
  const response = await post(ctx, REVOKE_PATH, { accept: 'application/json', ...clientHeaders(ctx), [TOKEN_HEADER]: token });
  if (!response.ok) throw await errorFrom(response, REVOKE_PATH);
  await response.body?.cancel();
}

const clientHeaders = (ctx: TokenEndpointContext) => ({ [CLIENT_ID_HEADER]: ctx.clientId, [CLIENT_SECRET_HEADER]: ctx.clientSecret });

/**
 * One POST, bounded in time. Redirects are refused: following one would send
 * the credentials to wherever it points.
 */
async function post(ctx: TokenEndpointContext, path: string, headers: Record<string, string>, body?: string): Promise<Response> {
  try {
    return await ctx.fetch(`${ctx.baseUrl}${path}`, { method: 'POST', headers, body, redirect: 'error', signal: AbortSignal.timeout(ctx.timeoutMs) });
  } catch (error) {
    throw new TokenRequestError(isTimeout(error) ? `no answer from ${path} within ${ctx.timeoutMs} ms` : `${path} could not be reached`, { cause: error });
  }
}

async function readTokenResponse(response: Response): Promise<IssuedTokens> {
  if (!response.ok) throw await errorFrom(response, TOKEN_PATH);
  const body = await readJson(response);
  const tokens = isRecord(body) ? toIssuedTokens(body) : undefined;
  if (!tokens) throw new TokenRequestError(`${TOKEN_PATH} answered ${response.status} without a valid token response`, { status: response.status });
  return tokens;
}

/** SPEC 2.1: `expires_in` and `issued_at` are digit strings; numbers are accepted too, as RFC 6749 writes them. */
function toIssuedTokens(body: Record<string, unknown>): IssuedTokens | undefined {
  const { access_token, refresh_token, token_type, expires_in, issued_at } = body;
  const lifetimeSeconds = digits(expires_in);
  if (!isTokenValue(access_token) || lifetimeSeconds === undefined) return undefined;
  if (refresh_token !== undefined && !isTokenValue(refresh_token)) return undefined;
  if (token_type !== undefined && (typeof token_type !== 'string' || token_type.toLowerCase() !== 'bearer')) return undefined;
  return { accessToken: access_token, refreshToken: refresh_token, lifetimeMs: lifetimeSeconds * 1000, issuedAt: digits(issued_at) };
}

/** The gateway's envelope becomes a TokenGatewayError; any other answer a TokenRequestError. */
async function errorFrom(response: Response, path: string): Promise<Error> {
  // A body that stops arriving is a timeout (with the status that did arrive), not an answer without an envelope.
  const body = (await readJson(response)) as Partial<ErrorEnvelope> | undefined;
  const first = Array.isArray(body?.errors) ? body.errors[0] : undefined;
  if (typeof first?.errorCode !== 'string' || typeof first.message !== 'string') {
    return new TokenRequestError(`${path} answered ${response.status} without the gateway's error envelope`, { status: response.status });
  }
  return new TokenGatewayError({
    status: response.status,
    errorCode: first.errorCode,
    message: first.message,
    requestId: typeof body?.requestId === 'string' ? body.requestId : (response.headers.get('x-request-id') ?? undefined),
    retryAfter: digits(response.headers.get('retry-after')),
    oauthError: typeof body?.error === 'string' ? body.error : undefined,
  });
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch (error) {
    if (isTimeout(error)) throw new TokenRequestError(`the answer of ${response.url || 'the gateway'} did not arrive in time`, { status: response.status, cause: error });
    return undefined;
  }
}

const isTimeout = (error: unknown): boolean => error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

// Tokens travel in headers (Authorization, refresh_token): visible ASCII only, so that
// a malformed one is refused here rather than by Headers, whose error quotes the value.
const isTokenValue = (value: unknown): value is string => typeof value === 'string' && /^[\x21-\x7e]+$/.test(value);

function digits(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  return typeof value === 'string' && /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : undefined;
}
