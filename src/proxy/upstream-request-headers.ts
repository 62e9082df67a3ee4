import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';
import type { Exchange } from '../http/exchange.js';

/*
 * What the upstream receives, header by header (docs: "What an upstream can
 * trust"). The client's headers come first, minus what stops at this hop;
 * the headers the gateway vouches for are written last, from what the gateway
 * itself saw, so no client spelling can remove, replace or shadow them.
 */

/** Headers the gateway writes on every forwarded request; a client's value never reaches the upstream as such. */
export const GATEWAY_REQUEST_HEADERS = ['host', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-port', 'x-request-id', 'forwarded'] as const;
const GATEWAY_OWNED: ReadonlySet<string> = new Set(GATEWAY_REQUEST_HEADERS);

/** Not forwarded in either direction (RFC 9110 7.6.1). `expect`: node has already answered `100 Continue` itself. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/**
 * Headers a client's `Connection` list cannot remove (the class of Traefik's
 * CVE-2024-45410): the credential the gateway authenticated the call with,
 * and the ones that frame and type the body the policies inspected. The
 * gateway's own headers need no entry: they are written after the list is
 * applied.
 */
const NOT_REMOVABLE_BY_CONNECTION: ReadonlySet<string> = new Set(['authorization', 'content-length', 'content-type', 'content-encoding']);

export interface ForwardedFacts {
  /** The upstream's `host[:port]`: Host is the upstream's, not the client's. */
  readonly upstreamHost: string;
  /** The socket peer is one of `trusted_proxies`: its X-Forwarded-Proto, -Host and -Port describe the client's side. */
  readonly fromTrustedProxy: boolean;
}

/**
 * The request headers for the upstream, as undici's flat `[name, value, ...]`
 * list. Left out: hop-by-hop headers and those the client's Connection names
 * (but never the ones above); any client header the gateway writes itself; a
 * client header spelt with underscores that CGI, WSGI, Rack and PHP upstreams
 * would read as one of the gateway's (`X_Forwarded_For` is HTTP_X_FORWARDED_FOR
 * to them), dropped as nginx does by default and Envoy's DROP_HEADER does.
 */
export function upstreamRequestHeaders(exchange: Exchange, facts: ForwardedFacts): string[] {
  const { headers } = exchange.req;
  const named = namedByConnection(headers.connection, NOT_REMOVABLE_BY_CONNECTION);
  const list: string[] = [];
  for (const name in headers) {
    if (GATEWAY_OWNED.has(name) || HOP_BY_HOP.has(name) || name === 'expect') continue;
    if (named?.includes(name) || shadowsGatewayHeader(name)) continue;
    const value = headers[name];
    if (typeof value === 'string') list.push(name, value);
    else if (value) for (const item of value) list.push(name, item);
  }
  appendGatewayHeaders(list, exchange, facts);
  return list;
}

// RFC 9112 3.2 / RFC 3986 3.2.2: an IP literal in brackets, or a reg-name (no comma: a list is no host), then a port.
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~%!$&'()*+;=]*)(?::\d*)?$/;
/** The last Host found valid: a gateway's requests mostly name one or two hosts, and the test is then one comparison. */
let lastValidHost: string | undefined;

/**
 * The client's Host before it becomes X-Forwarded-Host and Forwarded's
 * `host=`: RFC 9112 3.2 makes more than one Host, or an invalid one, a 400.
 * Two Host lines arrive joined (`a, b`: the listeners join duplicates), so
 * that a list-reading upstream never sees two hosts where the gateway saw one.
 */
export function assertValidHost(host: string | undefined): void {
  if (host === undefined || host === lastValidHost) return;
  if (!HOST.test(host)) {
    const shown = host.length > 64 ? `${host.slice(0, 64)}...` : host;
    throw new GatewayError('MALFORMED_REQUEST', { detail: `Host ${JSON.stringify(shown)} is not one host[:port]` });
  }
  lastValidHost = host;
}

/**
 * X-Forwarded-For gets the socket peer appended (readers take it right to
 * left: the last entry is the one the gateway vouches for). Proto, Host and
 * Port describe what the gateway saw, unless a trusted proxy set them.
 * Forwarded (RFC 7239) is one element written from those same facts, so a
 * reader that prefers it (Spring's ForwardedHeaderFilter) and one that reads
 * X-Forwarded-* learn the same client, scheme and host.
 */
function appendGatewayHeaders(list: string[], exchange: Exchange, { upstreamHost, fromTrustedProxy }: ForwardedFacts): void {
  const { req } = exchange;
  const headers = req.headers;
  const peer = req.socket.remoteAddress ?? '';
  const prior = joined(headers['x-forwarded-for']);
  const ownProto = 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http';
  const ownPort = String(req.socket.localPort ?? '');
  const proto = fromTrustedProxy ? (trustedProto(headers['x-forwarded-proto']) ?? ownProto) : ownProto;
  const host = fromTrustedProxy ? (trustedHost(headers['x-forwarded-host']) ?? headers.host) : headers.host;
  const port = fromTrustedProxy ? (trustedPort(headers['x-forwarded-port']) ?? ownPort) : ownPort;
  list.push('host', upstreamHost, 'x-forwarded-for', prior ? `${prior}, ${peer}` : peer, 'x-forwarded-proto', proto);
  if (host) list.push('x-forwarded-host', host);
  if (port) list.push('x-forwarded-port', port);
  list.push('x-request-id', exchange.requestId, 'forwarded', forwardedOf(exchange.clientAddress(), proto, host));
}

/*
 * A trusted proxy's X-Forwarded-Proto, -Host and -Port, each judged on its
 * own: one it sent is kept when it is one value of the right form, and
 * otherwise (absent, a list, anything else) the gateway writes what it saw
 * itself, as for any client. A list (`https, http`) is not picked from: which
 * entry describes the client depends on how the proxies in front are chained,
 * and a guess would tell the upstream a scheme or host nobody vouched for.
 * So the upstream's promise holds behind proxies too: `http` or `https`, one
 * `host[:port]`, one port.
 */
const PROTO = /^https?$/i;
const PORT = /^[1-9][0-9]{0,4}$/;

function trustedProto(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && PROTO.test(value) ? value.toLowerCase() : undefined;
}

function trustedHost(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && value !== '' && !value.startsWith(':') && HOST.test(value) ? value : undefined;
}

function trustedPort(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && PORT.test(value) && Number(value) <= 65_535 ? value : undefined;
}

/**
 * The last Forwarded element made, and what it was made of: a gateway's
 * requests mostly come from the same few clients to the same Host, and
 * quoting a `host:port` (a regular expression and a replace) was about
 * 0.25 µs of each protected call.
 */
let lastForwarded: { readonly client: string; readonly proto: string; readonly host: string | undefined; readonly element: string } | undefined;

function forwardedOf(client: string, proto: string, host: string | undefined): string {
  const last = lastForwarded;
  if (last && last.client === client && last.proto === proto && last.host === host) return last.element;
  const element = forwardedElement(client, proto, host);
  lastForwarded = { client, proto, host, element };
  return element;
}

const joined = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

/** `for=...;proto=...;host=...` (RFC 7239 4), quoting what is not a token (IPv6 addresses, `host:port`). */
export function forwardedElement(client: string, proto: string | undefined, host: string | undefined): string {
  let element = `for=${client.includes(':') ? `"[${client}]"` : asValue(client || 'unknown')}`;
  if (proto) element += `;proto=${asValue(proto)}`;
  if (host) element += `;host=${asValue(host)}`;
  return element;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const asValue = (value: string): string => (TOKEN.test(value) ? value : `"${value.replace(/["\\]/g, '\\$&')}"`);

/** `x_forwarded_for`, `X_Request_Id`...: read as the gateway's own header by upstreams that map `-` and `_` alike. */
function shadowsGatewayHeader(name: string): boolean {
  return name.includes('_') && GATEWAY_OWNED.has(name.replaceAll('_', '-'));
}

const USUAL_CONNECTION_OPTIONS = /^\s*(?:keep-alive|close)\s*$/i;

/**
 * Header names a Connection header lists (RFC 9110 7.6.1), lower-cased,
 * minus the usual options and `keep`; undefined when there are none.
 */
export function namedByConnection(connection: string | string[] | undefined, keep?: ReadonlySet<string>): string[] | undefined {
  if (!connection) return undefined;
  // What nearly every client and upstream sends, answered without splitting a list on each request and response.
  if (typeof connection === 'string' && USUAL_CONNECTION_OPTIONS.test(connection)) return undefined;
  const names = (Array.isArray(connection) ? connection.join(',') : connection)
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token && token !== 'close' && !HOP_BY_HOP.has(token) && !keep?.has(token));
  return names.length > 0 ? names : undefined;
}

/** Whether a header stops at this hop: one of the standard ones, or one the message's Connection header names. */
export function hopByHopOf(headers: IncomingHttpHeaders): (name: string) => boolean {
  const named = namedByConnection(headers.connection);
  return (name) => HOP_BY_HOP.has(name) || named?.includes(name) === true;
}
