import { GatewayError } from '../errors/gateway-error.js';
import { declaresNonUtf8Charset } from './negotiate.js';

/** RFC 6749 appendix B and RFC 7009 / RFC 7662: the media type of standard OAuth 2.0 request bodies. */
export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/** True for `application/x-www-form-urlencoded`, with or without parameters such as `; charset=UTF-8`. */
export function isFormContentType(value: string | undefined): boolean {
  if (!value) return false;
  return value.split(';')[0]?.trim().toLowerCase() === FORM_MEDIA_TYPE;
}

/**
 * A form we can read as RFC 6749 appendix B says: UTF-8. A form declared in
 * another charset would be read by us as one thing and meant as another, so
 * it is treated as a media type we do not support.
 */
export function isReadableForm(value: string | undefined): boolean {
  return isFormContentType(value) && !declaresNonUtf8Charset(value);
}

/**
 * The form as sent, every value of every name kept: for code that must not
 * throw (who a request claims to be, what a policy scans). `URLSearchParams`
 * decodes `+` and percent-escapes exactly once, as the upstream or any OAuth
 * server would.
 */
export function parseForm(text: string): URLSearchParams {
  return new URLSearchParams(text);
}

/**
 * The form's parameters, each name once. RFC 6749 3.1: "Request and response
 * parameters MUST NOT be included more than once"; a repeated one is refused
 * rather than guessed between (the rule the parameter headers follow too).
 */
export function singleValuedParameters(form: URLSearchParams): Readonly<Record<string, string>> {
  const parameters: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of form) {
    if (Object.hasOwn(parameters, name)) throw new GatewayError('MALFORMED_REQUEST', { detail: `form parameter ${shorten(name)} sent more than once` });
    parameters[name] = value;
  }
  return Object.freeze(parameters);
}

/**
 * The form as a JSON-like object for the body policies: each name to its
 * value, or to the list of its values when repeated, so that a selector such
 * as `$.username` or `$.scope[1]` reads a form as it reads a JSON body.
 */
export function formAsObject(form: URLSearchParams): Record<string, string | string[]> {
  const object: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of form) {
    const seen = object[name];
    if (seen === undefined) object[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else object[name] = [seen, value];
  }
  return object;
}

/** Names are the client's to choose: keep a long one from flooding the log line. */
const shorten = (name: string): string => (name.length > 40 ? `${name.slice(0, 40)}…` : name);
