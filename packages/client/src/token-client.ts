import { isReplayable, rejectsToken, resolveTarget, withBearer, type FetchInput } from './api-request.js';
import { isRefreshTokenGone, isTransient, mayHaveRotated, TokenGatewayError } from './errors.js';
import { readOptions, type ClientSettings, type TokenClientOptions } from './options.js';
import { scheduleRenewal, type RenewalSchedule } from './renewal-schedule.js';
import { SingleFlight } from './single-flight.js';
import { requestPasswordGrant, requestRefreshGrant, requestRevocation, type IssuedTokens, type TokenEndpointContext } from './token-endpoint.js';

interface HeldTokens extends RenewalSchedule {
  readonly accessToken: string;
  readonly refreshToken: string | undefined;
}

/** After a renewal fails for a passing reason while the token still works, the next attempt waits this long (or Retry-After). */
const RENEWAL_RETRY_DELAY_MS = 5_000;

/**
 * The longest wait before the one retry of a refresh that lost its answer,
 * whatever Retry-After says: the retry must reach the gateway well within its
 * grace window (30 s by default), which began when the lost attempt rotated.
 */
const REFRESH_RETRY_MAX_WAIT_MS = 2_000;

/** Marks a token the gateway refused: never handed out again, and its grace period is over. */
const REFUSED: RenewalSchedule = { renewAt: Number.NEGATIVE_INFINITY, usableUntil: Number.NEGATIVE_INFINITY };

/**
 * A client of the token gateway for one application and one account: it
 * gets an access token with the password grant (SPEC 4.3), reuses it, renews
 * it at the 28-minute mark with the refresh grant (SPEC 4.4, 5.5) and falls
 * back to the password grant when the refresh token is gone. Concurrent
 * callers share one token request.
 *
 * @example
 * ```ts
 * const client = new TokenClient({ baseUrl, clientId, clientSecret, username, password });
 * const response = await client.fetch('/business/score/v2/directors', { headers: { accept: 'application/json' } });
 * ```
 */
export class TokenClient {
  readonly #settings: ClientSettings;
  readonly #renewal = new SingleFlight<HeldTokens>();
  #tokens: HeldTokens | undefined;

  /** @throws TypeError when an option is missing or malformed (the message never quotes a credential). */
  constructor(options: TokenClientOptions) {
    this.#settings = readOptions(options);
  }

  /**
   * A valid access token: the held one while it is fresh, otherwise a new one
   * (refresh grant first, password grant when there is no usable refresh
   * token). Concurrent calls share a single token request.
   *
   * A refresh that gets no answer or a 5xx may have rotated the refresh token
   * at the gateway: it is sent once more at once (after Retry-After, at most
   * 2 s), which the gateway answers with the same pair within its grace
   * window. If renewal still fails for a passing reason (no answer, 429, 5xx,
   * Retry-After) while the held token is more than 10 s from expiry, that
   * token is returned and renewal is tried again 5 s later (or after
   * Retry-After).
   *
   * @throws TokenGatewayError when the gateway refuses (e.g. 401 `INVALID_CLIENT_CREDENTIALS`)
   * @throws TokenRequestError when there is no usable answer (network, timeout)
   * Nothing else is retried inside: the next call sends a new request.
   */
  async getAccessToken(): Promise<string> {
    const held = this.#tokens;
    if (held && this.#now() < held.renewAt) return held.accessToken;
    try {
      return (await this.#renew()).accessToken;
    } catch (error) {
      return this.#heldTokenDespite(error);
    }
  }

  /**
   * `fetch` with `Authorization: Bearer <access token>` (SPEC 4.6); a bound
   * function, so it can be handed to code that expects `fetch`. A path is
   * relative to `baseUrl`; an absolute URL must be on `baseUrl`'s origin or
   * one of `apiOrigins`.
   *
   * When the gateway refuses the token (401 with `error="invalid_token"`: it
   * expired early, or was revoked), the token is renewed, even if it looked
   * fresh, and the request is sent once more; concurrent refusals share one
   * renewal. The second answer is returned whatever it is. The retry happens
   * only when the body can be sent twice (none, a string, Blob, ArrayBuffer,
   * typed array, URLSearchParams or FormData): a request with a stream body,
   * or a Request object with a body, gets the 401 back, and the next call
   * uses a new token. Other 401s (spike arrest, threat protection) are
   * returned as they are.
   */
  readonly fetch = async (input: FetchInput, init?: RequestInit): Promise<Response> => {
    const target = resolveTarget(input, this.#settings.endpoint.baseUrl, this.#settings.allowedOrigins);
    const token = await this.getAccessToken();
    const response = await this.#settings.endpoint.fetch(target, withBearer(input, init, token));
    if (!rejectsToken(response)) return response;
    this.#refuse(token);
    if (!isReplayable(input, init)) return response;
    await response.body?.cancel();
    return this.#settings.endpoint.fetch(target, withBearer(input, init, await this.getAccessToken()));
  };

  /**
   * Ends the session at the gateway (SPEC 4.5): revokes the refresh token,
   * which revokes every access token of its grant too, then forgets the
   * tokens; the next call starts over with the password grant. A renewal in
   * progress is waited for, so that its tokens are the ones revoked. If the
   * revocation fails the tokens are kept, so calling `revoke()` again retries;
   * `invalidate()` forgets without telling the gateway.
   */
  async revoke(): Promise<void> {
    await this.#renewal.settled();
    const held = this.#tokens;
    if (!held) return;
    await requestRevocation(this.#endpoint, held.refreshToken ?? held.accessToken);
    if (this.#tokens === held) this.#tokens = undefined;
  }

  /** Forgets the access token (not the refresh token): the next call renews, with the refresh grant first. */
  invalidate(): void {
    if (this.#tokens) this.#refuse(this.#tokens.accessToken);
  }

  #renew(): Promise<HeldTokens> {
    return this.#renewal.run(async () => {
      const tokens = await this.#obtainTokens();
      this.#tokens = tokens;
      return tokens;
    });
  }

  async #obtainTokens(): Promise<HeldTokens> {
    const refreshToken = this.#tokens?.refreshToken;
    if (refreshToken !== undefined) {
      try {
        return await this.#refresh(refreshToken);
      } catch (error) {
        if (!isRefreshTokenGone(error)) throw error;
        // Expired, revoked or replayed: its grant is over, the access token with it.
        this.#tokens = undefined;
      }
    }
    return this.#hold((endpoint) => requestPasswordGrant(endpoint, this.#settings.user));
  }

  /**
   * The refresh grant (SPEC 4.4), sent once more when the first attempt may
   * have rotated the token without its answer arriving (no answer, a 5xx):
   * the gateway answers a retry within its grace window with the same pair,
   * where it would otherwise have taken the second use for theft. Once only:
   * a second failure is the caller's (the held token is still served through
   * a passing failure), and a refusal of the retry as a replay falls back to
   * the password grant like any gone refresh token.
   */
  async #refresh(refreshToken: string): Promise<HeldTokens> {
    const send = () => this.#hold((endpoint) => requestRefreshGrant(endpoint, refreshToken), refreshToken);
    try {
      return await send();
    } catch (error) {
      if (!mayHaveRotated(error)) throw error;
      const retryAfterMs = error instanceof TokenGatewayError && error.retryAfter !== undefined ? error.retryAfter * 1000 : 0;
      await new Promise((resolve) => setTimeout(resolve, Math.min(retryAfterMs, REFRESH_RETRY_MAX_WAIT_MS)));
      return send();
    }
  }

  /** Sends a grant and schedules the renewal of what it returns, from the moment it was sent. */
  async #hold(grant: (endpoint: TokenEndpointContext) => Promise<IssuedTokens>, previousRefreshToken?: string): Promise<HeldTokens> {
    const requestedAt = this.#now();
    const issued = await grant(this.#endpoint);
    return {
      accessToken: issued.accessToken,
      refreshToken: issued.refreshToken ?? previousRefreshToken,
      ...scheduleRenewal(requestedAt, issued.lifetimeMs, this.#settings.renewAfterMs),
    };
  }

  /** Keeps serving a token that still works through a passing failure, and schedules the next attempt. */
  #heldTokenDespite(error: unknown): string {
    const held = this.#tokens;
    const now = this.#now();
    if (!held || !isTransient(error) || now >= held.usableUntil) throw error;
    const retryAfterMs = error instanceof TokenGatewayError && error.retryAfter !== undefined ? error.retryAfter * 1000 : RENEWAL_RETRY_DELAY_MS;
    this.#tokens = { ...held, renewAt: Math.min(now + retryAfterMs, held.usableUntil) };
    return held.accessToken;
  }

  /** Only the token that was refused: a newer one, from a renewal that already happened, stays. */
  #refuse(accessToken: string): void {
    const held = this.#tokens;
    if (held?.accessToken === accessToken) this.#tokens = { ...held, ...REFUSED };
  }

  get #endpoint(): TokenEndpointContext {
    return this.#settings.endpoint;
  }

  #now(): number {
    return this.#settings.now();
  }
}
