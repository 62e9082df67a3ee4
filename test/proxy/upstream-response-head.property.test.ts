import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueTokens } from '../helpers/gateway.js';
import { GatewayProcess } from '../helpers/gateway-process.js';
import { outcomeOf, startRawUpstream, type RawUpstream } from '../helpers/raw-upstream.js';

/**
 * Random upstream answers (status lines, reason phrases, headers, bodies,
 * framing, early closes and resets) through a real gateway process: every
 * client gets a well-formed answer or, once the upstream's own answer has
 * started, a cut connection; never silence, never bytes a strict parser
 * refuses; and the process is still serving at the end.
 */

const CRLF = '\r\n';
const raw = (...parts: Array<string | Uint8Array>): Buffer => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))));

const statusLine = fc.oneof(
  fc.constantFrom('HTTP/1.1 200 OK', 'HTTP/1.0 200 OK', 'HTTP/1.1 204 No Content', 'HTTP/1.1 304 Not Modified', 'HTTP/1.1 404 Not Found', 'HTTP/1.1 500 Oops', 'HTTP/1.1 101 Switching Protocols', 'HTTP/1.1 103 Early Hints', 'HTTP/1.1 200'),
  fc.tuple(fc.integer({ min: 0, max: 1_200 }), fc.uint8Array({ maxLength: 12 })).map(([code, reason]) => raw(`HTTP/1.1 ${code} `, reason)),
  fc.uint8Array({ maxLength: 40 }).map((junk) => raw(junk)),
);

const header = fc.oneof(
  fc.constantFrom(
    'content-type: application/json',
    'set-cookie: a=1',
    'set-cookie: b=2; HttpOnly',
    'connection: close',
    'connection: keep-alive, x-request-id',
    'x-request-id: from-upstream',
    'transfer-encoding: chunked',
    'transfer-encoding: gzip, chunked',
    'content-length: 0',
    'content-length: 5',
    'content-length: 99999',
    'content-length: -1',
    'content-length: 5, 5',
    'keep-alive: timeout=1',
    'trailer: x-t',
    'upgrade: h2c',
  ),
  fc.tuple(fc.stringMatching(/^[a-z][a-z-]{0,9}$/), fc.uint8Array({ maxLength: 24 })).map(([name, value]) => raw(`${name}: `, value)),
  fc.uint8Array({ maxLength: 30 }).map((junk) => raw(junk)),
);

const body = fc.oneof(
  fc.uint8Array({ maxLength: 64 }).map((bytes) => raw(bytes)),
  fc.array(fc.uint8Array({ minLength: 1, maxLength: 16 }), { maxLength: 4 }).map((chunks) => raw(...chunks.flatMap((chunk) => [`${chunk.length.toString(16)}${CRLF}`, chunk, CRLF]), `0${CRLF}${CRLF}`)),
  fc.constantFrom('5\r\nhello\r\n', 'zz\r\n', '0\r\nx-t: 1\r\n\r\n', 'hello'),
);

const answer = fc
  .record({ statusLine, headers: fc.array(header, { maxLength: 6 }), body, cutAt: fc.option(fc.nat(), { nil: undefined }), reset: fc.boolean() })
  .map(({ statusLine: line, headers, body: content, cutAt, reset }) => {
    const whole = raw(line, CRLF, ...headers.flatMap((h) => [h, CRLF]), CRLF, content);
    return { bytes: cutAt === undefined ? whole : whole.subarray(0, cutAt % (whole.length + 1)), reset };
  });

describe('random upstream answers through a gateway process', () => {
  let gateway: GatewayProcess;
  let upstream: RawUpstream;
  let authorization: string;
  beforeAll(async () => {
    upstream = await startRawUpstream();
    gateway = await GatewayProcess.start({ routes: [{ path: '/raw/', upstream: upstream.url, timeout: '2s' }] });
    authorization = `Bearer ${(await issueTokens(gateway.url)).access_token}`;
  });
  afterAll(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  it('answers every client well-formed (or cuts it once the answer has started) and keeps serving', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(answer, async (candidate) => {
        const name = `a${n++}`;
        upstream.answer(name, candidate);
        const outcome = await outcomeOf(gateway.url, `/raw/${name}`, authorization);
        expect(['complete', 'cut-after-head'], `${outcome.kind}: ${JSON.stringify(outcome)} for ${JSON.stringify(candidate.bytes.toString('latin1'))}`).toContain(outcome.kind);
        expect(gateway.alive).toBe(true);
      }),
      { numRuns: 1_000 },
    );
    expect(gateway.alive).toBe(true);
    expect((await fetch(`${gateway.url}/livez`)).status).toBe(200);
    expect((await outcomeOf(gateway.url, '/raw/plain', authorization)).kind).toBe('complete');
    // Nothing escaped to the last line of defence or became a 500: every refusal was a deliberate 502.
    expect(gateway.lines.filter((line) => (line.level as number) >= 50)).toEqual([]);
  }, 120_000);
});
