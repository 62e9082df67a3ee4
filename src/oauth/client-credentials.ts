import type { IncomingMessage } from 'node:http';
import type { AppAccount } from '../accounts/schema.js';
import type { GatewayContext } from '../context.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Exchange } from '../http/exchange.js';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** RFC 6749 section 5.2: a client that used HTTP Basic gets a Basic challenge with its 401. */
  challenge?: Record<string, string>;
}

type Partial = { clientId?: string; clientSecret?: string };

/**
 * Client credentials may arrive in three places (SPEC 4.3 JSON body, or an
 * RFC 6749 2.3.1 form body where the operator allows forms:
 * `client_secret_post`; the `client_id`/`client_secret` headers of SPEC
 * 4.4/4.5 and the published SDKs; RFC 6749 2.3.1 HTTP Basic,
 * `client_secret_basic`). Any of them is accepted; two places that disagree
 * are refused rather than guessed between.
 */
export function readClientCredentials(req: IncomingMessage, body?: Readonly<Record<string, unknown>>): ClientCredentials {
  const basic = fromBasic(req.headers.authorization);
  const sources: Partial[] = [
    { clientId: stringOf(body?.client_id), clientSecret: stringOf(body?.client_secret) },
    { clientId: headerOf(req, 'client_id'), clientSecret: headerOf(req, 'client_secret') },
    basic,
  ];
  const clientId = agreeOn(sources.map((source) => source.clientId));
  const clientSecret = agreeOn(sources.map((source) => source.clientSecret));
  if (!clientId || !clientSecret) throw new GatewayError('CLIENT_CREDENTIALS_REQUIRED');
  const challenge = basic.clientId !== undefined ? { 'WWW-Authenticate': 'Basic realm="token-gateway", charset="UTF-8"' } : undefined;
  return { clientId, clientSecret, challenge };
}

/**
 * The client_id a request names, before anything is verified: what policies
 * on the token endpoints count by. Never throws: a conflict or a missing id is
 * the endpoint's to report.
 */
export function claimedClientId(req: IncomingMessage, body?: Readonly<Record<string, unknown>>): string | undefined {
  const header = req.headersDistinct.client_id;
  const candidates = [header?.length === 1 ? header[0] : undefined, fromBasic(req.headers.authorization).clientId, stringOf(body?.client_id)];
  return candidates.find((candidate) => candidate !== undefined && candidate !== '');
}

/**
 * Every client_id a request names, in any place and however often, before
 * anything is verified: whether a form may be served depends on all of them
 * (oauth/form-encoding.ts). Never throws.
 */
export function namedClientIds(req: IncomingMessage, formClientIds: readonly string[]): string[] {
  const named = [...(req.headersDistinct.client_id ?? []), fromBasic(req.headers.authorization).clientId, ...formClientIds];
  return [...new Set(named.filter((id): id is string => id !== undefined && id !== ''))];
}

function agreeOn(values: Array<string | undefined>): string | undefined {
  const present = values.filter((value): value is string => value !== undefined && value !== '');
  if (new Set(present).size > 1) throw new GatewayError('CLIENT_CREDENTIALS_CONFLICT');
  return present[0];
}

const stringOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * A single-valued parameter header. Node joins a repeated custom header with
 * ", ", which would turn `token: a` + `token: b` into one value that is
 * neither; a parameter sent twice is refused instead.
 */
export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const values = req.headersDistinct[name];
  if (values === undefined) return undefined;
  if (values.length > 1) throw new GatewayError('MALFORMED_REQUEST', { detail: `header ${name} sent ${values.length} times` });
  return values[0];
}

function fromBasic(authorization: string | undefined): Partial {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!match) return {};
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return {};
  return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
}

/** RFC 6749 2.3.1: both parts are form-urlencoded before Basic encoding. */
function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, '%20'));
  } catch {
    return text;
  }
}

/**
 * Verifies the client (401 on failure) and records who it is, for the access
 * log and for the request pipeline, which runs the app's own policies next.
 */
export async function authenticateClient(ctx: GatewayContext, exchange: Exchange, credentials: ClientCredentials): Promise<AppAccount> {
  // Only a client_id we know is logged: an unknown one may be a secret typed into the wrong field.
  if (ctx.accounts.findApp(credentials.clientId)) exchange.clientId = credentials.clientId;
  return ctx.accounts.authenticateApp(credentials.clientId, credentials.clientSecret, credentials.challenge);
}
