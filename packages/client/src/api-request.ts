/**
 * The rules of `TokenClient.fetch` for one API call: where the token may go,
 * how it is attached, which 401 means "this token", and which requests can be
 * sent a second time.
 */

/** The first argument `fetch` accepts. */
export type FetchInput = string | URL | Request;

const isRequest = (input: FetchInput): input is Request => typeof input === 'object' && !(input instanceof URL);

/**
 * A path is relative to the gateway's base URL (SPEC 4: every path is
 * relative to {base_url}); an absolute URL must be on an allowed origin, so a
 * URL taken from a response cannot carry the token to someone else.
 */
export function resolveTarget(input: FetchInput, baseUrl: string, allowedOrigins: ReadonlySet<string>): FetchInput {
  const url = isRequest(input) ? new URL(input.url) : absoluteUrl(input, baseUrl);
  if (!allowedOrigins.has(url.origin)) {
    throw new TypeError(
      `TokenClient.fetch sends the access token only to ${[...allowedOrigins].join(', ')}; ${url.origin} is not one of them (see the apiOrigins option)`,
    );
  }
  return isRequest(input) ? input : url.href;
}

function absoluteUrl(input: string | URL, baseUrl: string): URL {
  if (input instanceof URL) return input;
  if (/^[a-z][a-z\d+.-]*:/i.test(input)) return new URL(input);
  return new URL(`${baseUrl}${input.startsWith('/') ? '' : '/'}${input}`);
}

/**
 * The caller's init with `Authorization: Bearer` set (SPEC 4.6). As with
 * fetch itself, headers in `init` replace those of a Request input; an
 * Authorization header of the caller's is replaced.
 */
export function withBearer(input: FetchInput, init: RequestInit | undefined, accessToken: string): RequestInit {
  const headers = new Headers(init?.headers ?? (isRequest(input) ? input.headers : undefined));
  headers.set('authorization', `Bearer ${accessToken}`);
  return { ...init, headers };
}

/**
 * A request can be sent twice only if its body can be read twice. Streams
 * (a ReadableStream or async iterable in `init.body`, or any Request input
 * that has a body) are consumed by the first attempt.
 */
export function isReplayable(input: FetchInput, init: RequestInit | undefined): boolean {
  if (init?.body !== undefined) return isReusableBody(init.body);
  return !isRequest(input) || input.body === null;
}

function isReusableBody(body: unknown): boolean {
  return (
    body === null ||
    typeof body === 'string' ||
    body instanceof URLSearchParams ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    (typeof Blob !== 'undefined' && body instanceof Blob) ||
    (typeof FormData !== 'undefined' && body instanceof FormData)
  );
}

/**
 * A 401 about the token itself: RFC 6750 3.1's `error="invalid_token"` in a
 * Bearer challenge, which the gateway sends for every token it refuses
 * (expired, revoked, forged). Its other 401s are policy refusals (spike
 * arrest, regex or JSON threat, SPEC 7): a new token would not change them,
 * and retrying a spike-arrested call would only add load.
 */
export function rejectsToken(response: Response): boolean {
  if (response.status !== 401) return false;
  const challenge = response.headers.get('www-authenticate') ?? '';
  return /(?:^|[\s,])Bearer\b/i.test(challenge) && /\berror\s*=\s*"?invalid_token\b/i.test(challenge);
}
