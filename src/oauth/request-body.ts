import type { GatewayContext } from '../context.js';
import type { Exchange } from '../http/exchange.js';
import { parseForm } from '../http/form-body.js';
import { readJsonObject } from '../http/json-body.js';

type JsonObject = Record<string, unknown> | undefined;
const parsedJson = new WeakMap<Exchange, Promise<JsonObject>>();
const parsedForms = new WeakMap<Exchange, Promise<URLSearchParams>>();

/**
 * The JSON body of a request to the token service, within the OAuth
 * endpoints' size (exchange.body) and depth limits; parsed once per request,
 * however many phases (policies counting by client_id, the endpoint) ask for it.
 */
export function readOAuthJsonBody(ctx: GatewayContext, exchange: Exchange): Promise<JsonObject> {
  let parsed = parsedJson.get(exchange);
  if (!parsed) {
    parsed = readJsonObject(exchange.body, ctx.config.limits.json_depth);
    parsedJson.set(exchange, parsed);
  }
  return parsed;
}

/**
 * A form body (RFC 6749 appendix B), within the same size limit as a JSON
 * body (`limits.oauth_body_size`, exchange.body), every value of every name
 * kept; parsed once per request. Repeated names are the endpoint's to refuse
 * (http/form-body.ts singleValuedParameters): who a request claims to be is
 * asked before that, and must not throw.
 */
export function readOAuthForm(exchange: Exchange): Promise<URLSearchParams> {
  let parsed = parsedForms.get(exchange);
  if (!parsed) {
    parsed = exchange.body.text().then(parseForm);
    parsedForms.set(exchange, parsed);
  }
  return parsed;
}

/** The names a form carries exactly once, for code that asks who a request claims to be (never throws on repeats). */
export function unambiguousMembers(form: URLSearchParams): Record<string, string> {
  const members: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const name of new Set(form.keys())) {
    const values = form.getAll(name);
    if (values.length === 1) members[name] = values[0] as string;
  }
  return members;
}
