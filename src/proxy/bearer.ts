import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayContext } from '../context.js';
import { catalogue } from '../errors/catalogue.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import type { MaybePromise } from '../maybe-promise.js';
import type { AccessTokenClaims } from '../tokens/access-token.js';
import { isAccessTokenRevoked } from '../tokens/access-token-revocation.js';
import { tokenId } from '../tokens/verified-tokens.js';

const REALM = 'token-gateway';
// RFC 6750 section 2.1: "Bearer" 1*SP b64token.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** RFC 6750 section 3: no credentials, no error code; a bad token, invalid_token. */
const NO_CREDENTIALS_CHALLENGE = { 'WWW-Authenticate': `Bearer realm="${REALM}"` };
const INVALID_TOKEN_CHALLENGE = {
  'WWW-Authenticate': `Bearer realm="${REALM}", error="invalid_token", error_description="${catalogue.ACCESS_TOKEN_INVALID.message}"`,
};

/** A well-formed Bearer credential: the header it came in, the token, and what the verified-token cache knows it by. */
interface PresentedToken {
  readonly header: string;
  readonly token: string;
  readonly id: string;
}

/**
 * The last credential each connection presented. A client sends the same
 * token on every request of a keep-alive connection for as long as the token
 * lives, so the next request with the very same header (compared whole) skips
 * the syntax check and the SHA-256 of the cache key: about 1 µs of a
 * protected call (bench/README.md, "What changed"). Only the parsing is
 * remembered: expiry, the key and revocation are checked on every request, as
 * before. One entry per open connection, gone with it (about 600 bytes each).
 */
const lastPresented = new WeakMap<Socket, PresentedToken>();

/** The request's Bearer token, or the refusal of a missing or malformed one. */
function presentedToken(req: IncomingMessage): PresentedToken {
  const header = req.headers.authorization;
  const socket = req.socket as Socket | null;
  const last = socket ? lastPresented.get(socket) : undefined;
  if (last !== undefined && last.header === header) return last;
  // Two Authorization lines arrive joined by the listener (`Bearer a, Bearer b`; no credential holds ", "): refused,
  // whichever scheme comes first, rather than one of them taken.
  if (header?.includes(', ')) throw new GatewayError('ACCESS_TOKEN_INVALID', { detail: 'more than one Authorization header', headers: INVALID_TOKEN_CHALLENGE });
  if (header === undefined || !/^Bearer\b/i.test(header)) {
    throw new GatewayError('AUTHENTICATION_REQUIRED', { detail: 'no bearer token', headers: NO_CREDENTIALS_CHALLENGE });
  }
  const token = BEARER.exec(header)?.[1];
  if (!token) throw new GatewayError('ACCESS_TOKEN_INVALID', { detail: 'malformed bearer token', headers: INVALID_TOKEN_CHALLENGE });
  const presented = { header, token, id: tokenId(token) };
  if (socket) lastPresented.set(socket, presented);
  return presented;
}

/**
 * SPEC 4.6: a protected call carries `Authorization: Bearer <token>`. Checks
 * signature, typ, iss, aud and exp (AccessTokens.verify), then revocation of
 * the token and of its grant, from memory.
 */
export function authenticateBearer(ctx: GatewayContext, req: IncomingMessage): MaybePromise<AccessTokenClaims> {
  const { token, id } = presentedToken(req);
  // Throws only while the keys are not loaded (a 503, passed on as it is); a verification's failure rejects.
  const claims = ctx.accessTokens.recallOrVerify(token, id);
  // A token verified before is answered synchronously (no promise, no microtask turn): the usual protected call.
  if (!(claims instanceof Promise)) return unlessRevoked(ctx, claims);
  return claims.then(
    (verified) => unlessRevoked(ctx, verified),
    (error: unknown) => {
      throw asBearerFailure(error);
    },
  );
}

/** A verification failure as the client sees it; the store or keys being away stays a 503. */
function asBearerFailure(error: unknown): unknown {
  if (!isGatewayError(error) || error.code === 'SERVICE_UNAVAILABLE') return error;
  return new GatewayError('ACCESS_TOKEN_INVALID', { detail: error.detail, headers: INVALID_TOKEN_CHALLENGE });
}

function unlessRevoked(ctx: GatewayContext, claims: AccessTokenClaims): AccessTokenClaims {
  if (isAccessTokenRevoked(ctx.store.revocations, claims)) {
    throw new GatewayError('ACCESS_TOKEN_INVALID', { detail: 'token revoked', headers: INVALID_TOKEN_CHALLENGE });
  }
  return claims;
}
