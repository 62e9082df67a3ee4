import type { FetchLike } from '@token-gateway/client';
import type { TokenResponse } from './gateway.js';
import { refusingPort } from './refusing-port.js';

export type RequestKind = 'password' | 'refresh_token' | 'revoke' | 'api';

/**
 * A real fetch that counts what the client sends, by kind, and keeps the
 * token responses it saw (so a test can revoke a refresh token the client
 * holds). With `networkDown` every request goes to a port that refuses
 * connections (refusingPort): a real connection refusal, not a mock.
 */
export class CountingFetch {
  readonly sent: RequestKind[] = [];
  readonly issued: TokenResponse[] = [];
  /** API calls as sent: the bearer token each one carried. */
  readonly bearers: string[] = [];
  networkDown = false;
  /**
   * Refresh requests whose answer is lost on the way back: each reaches the
   * gateway (which rotates the token), then the caller sees `lostAs`: a
   * network error by default, or a response that stands in for a balancer's
   * 5xx (the gateway's own answer is read and dropped).
   */
  loseRefreshAnswers = 0;
  lostAs: (() => Response) | undefined;
  /** Runs before an API call is sent, with the token it carries. */
  beforeApiCall: ((accessToken: string) => Promise<void>) | undefined;

  private constructor(private readonly refusing: number) {}

  static async create(): Promise<CountingFetch> {
    return new CountingFetch(await refusingPort());
  }

  count(kind: RequestKind): number {
    return this.sent.filter((sent) => sent === kind).length;
  }

  get tokenRequests(): number {
    return this.count('password') + this.count('refresh_token');
  }

  get lastIssued(): TokenResponse {
    const last = this.issued.at(-1);
    if (!last) throw new Error('no token issued yet');
    return last;
  }

  private unreachable(url: URL): URL {
    const moved = new URL(url);
    moved.port = String(this.refusing);
    return moved;
  }

  readonly fetch: FetchLike = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const kind = classify(url.pathname, headers);
    this.sent.push(kind);
    if (kind === 'api') {
      const token = (headers.get('authorization') ?? '').replace(/^Bearer /, '');
      this.bearers.push(token);
      await this.beforeApiCall?.(token);
    }
    const response = await fetch(this.networkDown ? this.unreachable(url) : input, init);
    if (kind === 'refresh_token' && this.loseRefreshAnswers > 0) {
      this.loseRefreshAnswers--;
      await response.body?.cancel();
      if (this.lostAs) return this.lostAs();
      throw new TypeError('fetch failed: the connection was reset before the answer arrived');
    }
    if (response.ok && (kind === 'password' || kind === 'refresh_token')) this.issued.push((await response.clone().json()) as TokenResponse);
    return response;
  };
}

function classify(path: string, headers: Headers): RequestKind {
  if (path === '/oauth2/v1/revokeToken') return 'revoke';
  if (path !== '/oauth2/v1/token') return 'api';
  return headers.get('grant_type') === 'refresh_token' ? 'refresh_token' : 'password';
}
