import { pino, type Logger } from 'pino';

/** The fields of one access line, written in this order; an undefined field is left out, as pino leaves it out. */
export interface AccessLine {
  readonly requestId: string;
  readonly method: string | undefined;
  readonly path: string;
  readonly route: string | undefined;
  readonly status: number;
  readonly latencyMs: number;
  readonly clientId: string | undefined;
  readonly errorCode: string | undefined;
  readonly policy: string | undefined;
  readonly detail: string | undefined;
}

/** The parts of a pino logger the line is made of: its time function, its bindings and its destination. */
interface PinoParts {
  [pino.symbols.timeSym]: () => string;
  [pino.symbols.chindingsSym]: string;
  [pino.symbols.streamSym]: { write(line: string): unknown };
}

/**
 * Writes the access line at `info`: the very bytes `logger.info(line,
 * 'request')` writes (level, time, the logger's bindings, the fields, msg),
 * built from a fixed template instead of pino's walk over an object. One
 * difference, on purpose: a lone surrogate (a string that is not well-formed
 * UTF-16, which a client can send in a JSON body's client_id) is written as a
 * `\uXXXX` escape, where pino writes it raw and the encoder then turns it
 * into U+FFFD: our line parses back to the value, pino's loses it.
 *
 * Why: in a gateway serving protected calls on one core, pino's generic walk
 * (a serializer lookup, a type switch and its own string escaping per key)
 * cost about 6 µs of the line's CPU per call under the profiler, and the
 * template measured about 6 µs of user CPU per call less than it in an
 * interleaved run (bench/README.md, "Where each microsecond of a protected
 * call goes"). fastify compiles its serializers for the same reason.
 *
 * Secrets stay out by construction, as before: only these named fields,
 * never a header, body or query. Every string that needs escaping goes
 * through JSON.stringify, which is what pino itself falls back to for any
 * string with a control character or longer than it scans; a test holds the
 * two byte for byte over random well-formed fields, and to the same parsed
 * value over any.
 */
export function writeAccessLine(logger: Logger, line: AccessLine): void {
  const parts = logger as unknown as PinoParts;
  let text = `{"level":${INFO}${parts[pino.symbols.timeSym]()}${parts[pino.symbols.chindingsSym]},"requestId":${quote(line.requestId)}`;
  if (line.method !== undefined) text += `,"method":${METHOD.quoted(line.method)}`;
  text += `,"path":${PATH.quoted(line.path)}`;
  if (line.route !== undefined) text += `,"route":${ROUTE.quoted(line.route)}`;
  text += `,"status":${finite(line.status)},"latencyMs":${finite(line.latencyMs)}`;
  if (line.clientId !== undefined) text += `,"clientId":${CLIENT_ID.quoted(line.clientId)}`;
  if (line.errorCode !== undefined) text += `,"errorCode":${quote(line.errorCode)}`;
  if (line.policy !== undefined) text += `,"policy":${quote(line.policy)}`;
  if (line.detail !== undefined) text += `,"detail":${quote(line.detail)}`;
  parts[pino.symbols.streamSym].write(`${text},"msg":"request"}\n`);
}

const INFO = pino.levels.values.info;
// What JSON.stringify escapes: a quote, a backslash, a control character, a surrogate (escaped when lone, kept in a pair).
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;
/**
 * A string as JSON.stringify writes it. The usual field (an id, a path, a
 * route) has nothing to escape and is quoted as it is, which is what pino's
 * own string writer does for short strings: a test of one regular expression
 * instead of a call that builds a new string (about 0.3 µs of the line's
 * 1.4 in a protected call's profile).
 */
const quote = (value: string): string => (NEEDS_ESCAPING.test(value) ? JSON.stringify(value) : `"${value}"`);
/**
 * A field's last value and its quoted form. The method, route and client id
 * of a busy gateway's lines repeat from one line to the next (the same string
 * objects, mostly: node's method table, the route's name, the cached token's
 * claim), and so does the path of a client polling one resource; comparing
 * with the last value is a pointer or a short memcmp where the escaping test
 * is a regular expression run: about 1.9k of the line's 5.3k instructions
 * went to those tests (bench/README.md, "Counted in instructions"). The
 * request id is new on every line and is tested as before.
 */
class LastQuoted {
  private value: string | undefined;
  private text = '';

  quoted(value: string): string {
    if (value !== this.value) {
      this.text = quote(value);
      this.value = value;
    }
    return this.text;
  }
}
const METHOD = new LastQuoted();
const PATH = new LastQuoted();
const ROUTE = new LastQuoted();
const CLIENT_ID = new LastQuoted();
/** pino writes a number that is not finite as null. */
const finite = (value: number): number | null => (Number.isFinite(value) ? value : null);
