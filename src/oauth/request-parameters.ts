import type { IncomingMessage } from 'node:http';
import type { GatewayContext } from '../context.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Exchange } from '../http/exchange.js';
import { isReadableForm, singleValuedParameters } from '../http/form-body.js';
import { contentCodingOf, isJsonContentType } from '../http/negotiate.js';
import { headerOf } from './client-credentials.js';
import { formPermitted, formsAccepted } from './form-encoding.js';
import { readOAuthForm, readOAuthJsonBody } from './request-body.js';

/**
 * The parameters of one request to the token service, wherever they came
 * from: the spec's wire format (a JSON body, parameters as headers) or an
 * RFC 6749 / 7009 / 7662 form.
 */
export interface OAuthParameters {
  /** How the body was read: the spec's JSON, a form, or none (no body, or one that is not read). */
  readonly format: 'json' | 'form' | 'none';
  /** The body's members: the JSON object's (any type), or the form's (strings), each name once. */
  readonly body: Readonly<Record<string, unknown>> | undefined;
  /**
   * A parameter the spec sends as a header (`grant_type`, `refresh_token`,
   * `token`; SPEC 4.3 to 4.5). A form carries it as a form parameter
   * (RFC 6749 4.3.2 and 6, RFC 7009 2.1, RFC 7662 2.1); where both carry it
   * they must agree, and two that do not are refused, as client credentials
   * in two places are. A JSON body's members of these names are ignored, as
   * they always were.
   */
  get(name: string): string | undefined;
}

/** The spec's format: headers, and a JSON body if there is one. */
export function specParameters(req: IncomingMessage, format: 'json' | 'none', body: Readonly<Record<string, unknown>> | undefined): OAuthParameters {
  return { format, body, get: (name) => headerOf(req, name) };
}

/** A form (each name once, else 400), with the headers the spec's clients send beside it. */
export function formParameters(req: IncomingMessage, form: URLSearchParams): OAuthParameters {
  const body = singleValuedParameters(form);
  return {
    format: 'form',
    body,
    get(name) {
      const header = present(headerOf(req, name));
      const field = present(body[name]);
      if (header !== undefined && field !== undefined && header !== field) {
        throw new GatewayError('MALFORMED_REQUEST', { detail: `${name} in a header and in the form do not match` });
      }
      return header ?? field;
    },
  };
}

/** Blank counts as absent, as for client credentials: a client that sends `token=` has sent no token. */
const present = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed === '' ? undefined : trimmed;
};

/**
 * An endpoint's own read of its body as a form or JSON: the bytes must be the
 * body itself. The token service inflates nothing, and compressed bytes read
 * as a form or JSON would fail later as a missing credential or malformed
 * JSON, the wrong blame. RFC 9110 15.5.16: an unsupported content coding is
 * 415, and RFC 7694 lets the answer say which codings are accepted. (What a
 * policy asks of the body to know who is calling never throws: it reads
 * request-body.ts directly.)
 */
export function endpointForm(exchange: Exchange): Promise<URLSearchParams> {
  assertIdentityCoded(exchange.req);
  return readOAuthForm(exchange);
}

/** The JSON counterpart of endpointForm. */
export function endpointJson(ctx: GatewayContext, exchange: Exchange): Promise<Record<string, unknown> | undefined> {
  assertIdentityCoded(exchange.req);
  return readOAuthJsonBody(ctx, exchange);
}

/** The check itself, for the token endpoint, which makes it before the grant_type header's (415 before 400). */
export function assertIdentityCoded(req: IncomingMessage): void {
  const coding = contentCodingOf(req.headers);
  if (coding === undefined) return;
  throw new GatewayError('UNSUPPORTED_MEDIA_TYPE', {
    detail: `Content-Encoding ${coding.slice(0, 40)}: the token service reads only unencoded bodies`,
    headers: { 'Accept-Encoding': 'identity' },
  });
}

/**
 * A form an opt-in endpoint (token, revocation) may serve, read and checked
 * (oauth/form-encoding.ts): undefined when the body is not a form, or when
 * the apps the request names may not use forms, which the endpoint then
 * answers as it answers any other media type.
 */
export async function permittedForm(ctx: GatewayContext, exchange: Exchange): Promise<URLSearchParams | undefined> {
  if (!isReadableForm(exchange.req.headers['content-type'])) return undefined;
  // Unread when no app may use forms: the spec's answer, from the headers alone, exactly as before the switch existed.
  if (!formsAccepted(ctx)) return undefined;
  const form = await endpointForm(exchange);
  return formPermitted(ctx, exchange.req, form) ? form : undefined;
}

/**
 * The parameters of an endpoint whose body is optional (revocation): a form
 * it may serve, else a JSON body (client credentials, SPEC 4.5 as on the
 * token endpoint), else none: any other body is read within the limit and
 * discarded, so keep-alive stays usable.
 */
export async function optionalBodyParameters(ctx: GatewayContext, exchange: Exchange): Promise<OAuthParameters> {
  const { req } = exchange;
  const form = await permittedForm(ctx, exchange);
  if (form) return formParameters(req, form);
  if (isJsonContentType(req.headers['content-type'])) return specParameters(req, 'json', await endpointJson(ctx, exchange));
  await exchange.body.read();
  return specParameters(req, 'none', undefined);
}

/**
 * The parameters of an endpoint that always reads forms (introspection,
 * RFC 7662 2.1), and takes the spec's style beside them: parameters as
 * headers, client credentials in a JSON body as on the revocation endpoint,
 * or no body at all. A body of any other declared media type is 415: there
 * is no older contract here to keep, so nothing is silently ignored.
 */
export async function formOrSpecParameters(ctx: GatewayContext, exchange: Exchange): Promise<OAuthParameters> {
  const { req } = exchange;
  const contentType = req.headers['content-type'];
  if (isReadableForm(contentType)) return formParameters(req, await endpointForm(exchange));
  if (isJsonContentType(contentType)) return specParameters(req, 'json', await endpointJson(ctx, exchange));
  if (contentType !== undefined) throw new GatewayError('UNSUPPORTED_MEDIA_TYPE', { detail: 'not a form, JSON or no body' });
  await exchange.body.read();
  return specParameters(req, 'none', undefined);
}
