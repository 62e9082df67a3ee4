import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseHeadOf, writeResponseHead } from '../../src/proxy/upstream-response-head.js';
import { bootGateway, issueTokens, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/eventually.js';
import { outcomeOf, startRawUpstream, type ClientOutcome, type RawAnswer, type RawUpstream } from '../helpers/raw-upstream.js';

/**
 * Upstream answers are untrusted input: whatever an upstream writes, the
 * client gets a well-formed answer (the upstream's, relayed, or a 502 in the
 * envelope), or a cut connection once the upstream's own answer has started,
 * and the gateway goes on serving. upstream-response-head.property.test.ts drives
 * random answers through a gateway process; these are the named cases.
 */

const bytes = (...parts: Array<string | number[]>): Buffer => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))));
const utf8 = (text: string): number[] => [...Buffer.from(text, 'utf8')];

const BAD_GATEWAY = { kind: 'complete', status: 502 } as const;

// [name, what the upstream writes, what the client must see]
const CASES: Array<[string, RawAnswer, Partial<ClientOutcome> & { kind: ClientOutcome['kind'] }]> = [
  ['a control character in the reason phrase', { bytes: 'HTTP/1.1 200 OK\x01\r\ncontent-length: 2\r\n\r\nok' }, BAD_GATEWAY],
  ['a character above U+00FF in the reason phrase', { bytes: bytes('HTTP/1.1 200 ', utf8('€'), ' OK\r\ncontent-length: 2\r\n\r\nok') }, BAD_GATEWAY],
  ['invalid bytes in the reason phrase', { bytes: bytes('HTTP/1.1 200 O', [0xff, 0xfe], 'K\r\ncontent-length: 2\r\n\r\nok') }, BAD_GATEWAY],
  ['a control character in a header value', { bytes: 'HTTP/1.1 200 OK\r\nx-a: a\x01b\r\ncontent-length: 2\r\n\r\nok' }, BAD_GATEWAY],
  ['a space in a header name', { bytes: 'HTTP/1.1 200 OK\r\nx a: b\r\ncontent-length: 2\r\n\r\nok' }, BAD_GATEWAY],
  ['no status line at all', { bytes: 'garbage\r\n\r\n' }, BAD_GATEWAY],
  ['an empty answer', { bytes: '' }, BAD_GATEWAY],
  ['a reset before any byte', { bytes: '', reset: true }, BAD_GATEWAY],
  ['half a status line', { bytes: 'HTTP/1.1 20' }, BAD_GATEWAY],
  ['a head without its end', { bytes: 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n' }, BAD_GATEWAY],
  ['Content-Length and Transfer-Encoding together', { bytes: 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n' }, BAD_GATEWAY],
  ['two different Content-Lengths', { bytes: 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\nok!' }, BAD_GATEWAY],
  ['an invalid chunk size', { bytes: 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n' }, BAD_GATEWAY],
  ['a body announced and never sent', { bytes: 'HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n' }, BAD_GATEWAY],
  ['headers over 16 KiB', { bytes: `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(20_000)}\r\ncontent-length: 2\r\n\r\nok` }, BAD_GATEWAY],
  ['101 Switching Protocols nobody asked for', { bytes: 'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n' }, BAD_GATEWAY],
  ['a body cut short after it started', { bytes: 'HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhalf' }, { kind: 'cut-after-head', status: 200 }],
  ['a chunked body cut short after it started', { bytes: 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\nhalf\r\n' }, { kind: 'cut-after-head', status: 200 }],
  ['obs-text in a header value, relayed byte for byte', { bytes: bytes('HTTP/1.1 200 OK\r\nx-a: ', utf8('€'), '\r\ncontent-length: 2\r\n\r\nok') }, { kind: 'complete', status: 200 }],
  ['a status code above 599', { bytes: 'HTTP/1.1 999 Odd\r\ncontent-length: 2\r\n\r\nok' }, { kind: 'complete', status: 999, statusMessage: 'Odd' }],
  ['no reason phrase', { bytes: 'HTTP/1.1 200\r\ncontent-length: 2\r\n\r\nok' }, { kind: 'complete', status: 200 }],
  ['a close-delimited HTTP/1.0 body', { bytes: 'HTTP/1.0 200 OK\r\n\r\nclose-delimited' }, { kind: 'complete', status: 200 }],
  ['a 204 announcing a body (RFC 9110 8.6: never)', { bytes: 'HTTP/1.1 204 No Content\r\ncontent-length: 2\r\n\r\nok' }, { kind: 'complete', status: 204 }],
  ['a 304 with the Content-Length RFC 9110 8.6 allows', { bytes: 'HTTP/1.1 304 Not Modified\r\netag: "v1"\r\ncontent-length: 100\r\n\r\n' }, { kind: 'complete', status: 304 }],
];

describe('answers from an upstream that no client should have to trust', () => {
  let tg: TestGateway;
  let upstream: RawUpstream;
  let authorization: string;
  beforeAll(async () => {
    upstream = await startRawUpstream();
    tg = await bootGateway({ config: { routes: [{ path: '/raw/', upstream: upstream.url, timeout: '2s' }] } });
    authorization = `Bearer ${(await issueTokens(tg.url)).access_token}`;
  });
  afterAll(async () => {
    await tg.close();
    await upstream.close();
  });

  it.each(CASES)('%s', async (name, answer, expected) => {
    const path = `/raw/${name.replace(/\W+/g, '-')}`;
    upstream.answer(path.split('/').at(-1)!, answer);
    const outcome = await outcomeOf(tg.url, path, authorization);
    expect(outcome).toMatchObject(expected);
    if (outcome.kind === 'complete' && outcome.status === 502) {
      expect(JSON.parse(outcome.body.toString())).toMatchObject({ errors: [{ errorCode: 'UPSTREAM_UNAVAILABLE' }] });
      expect(outcome.statusMessage).toBe('Bad Gateway');
    }
    // Every answer is logged with its route and why; a refused one as a 502 with the reason in `detail`.
    const line = await accessLineFor(tg, path);
    expect(line).toMatchObject({ route: '/raw/', status: outcome.kind === 'complete' ? outcome.status : expect.any(Number) });
    if (expected === BAD_GATEWAY) expect(line?.detail).toEqual(expect.any(String));
  });

  it('relays obs-text in a header value as the same bytes', async () => {
    upstream.answer('obs', { bytes: bytes('HTTP/1.1 200 OK\r\nx-a: ', utf8('€'), '\r\ncontent-length: 2\r\n\r\nok') });
    const outcome = await outcomeOf(tg.url, '/raw/obs', authorization);
    expect(outcome.kind === 'complete' && Buffer.from(String(outcome.headers['x-a']), 'latin1').toString('utf8')).toBe('€');
  });

  it("keeps the gateway's X-Request-Id over one the upstream sends, and drops a 204's Content-Length", async () => {
    upstream.answer('rid', { bytes: 'HTTP/1.1 200 OK\r\nx-request-id: from-upstream\r\ncontent-length: 2\r\n\r\nok' });
    const outcome = await outcomeOf(tg.url, '/raw/rid', authorization);
    expect(outcome.kind === 'complete' && outcome.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    upstream.answer('nocontent', { bytes: 'HTTP/1.1 204 No Content\r\ncontent-length: 2\r\n\r\nok' });
    const empty = await outcomeOf(tg.url, '/raw/nocontent', authorization);
    expect(empty.kind === 'complete' && empty.headers['content-length']).toBeUndefined();
  });

  it('goes on serving every route and the token service afterwards', async () => {
    expect((await outcomeOf(tg.url, '/business/score/v2/directors', authorization)).kind).toBe('complete');
    expect((await issueTokens(tg.url)).access_token).toEqual(expect.any(String));
  });
});

function accessLineFor(tg: TestGateway, path: string): Promise<Record<string, unknown>> {
  return eventually(() => tg.logs.find((entry) => entry.msg === 'request' && entry.path === path), { timeoutMs: 2_000, intervalMs: 10, what: `the access line for ${path}` });
}

describe('writeResponseHead: node refuses a header undici let through', () => {
  // No upstream answer we know of reaches this (undici's parser refuses such heads first): the net behind it.
  it('undoes the whole head and says what node refused', () => {
    const res = new ServerResponse(new IncomingMessage(new Socket()));
    const head = responseHeadOf(200, 'Fine', { 'x-first': 'kept-until-refused', 'x-bad': 'a\u0001b' }, 'req-1');
    expect(typeof head).toBe('object');
    expect(writeResponseHead(res, head as Exclude<typeof head, string>)).toBe('upstream response head cannot be written: ERR_INVALID_CHAR');
    expect(res.headersSent).toBe(false);
    expect(res.getHeaderNames()).toEqual([]);
    expect(res.statusMessage).toBe('');
  });

  it('undoes headers set on the response before the relay too', () => {
    const res = new ServerResponse(new IncomingMessage(new Socket()));
    res.setHeader('X-Set-Before', 'yes');
    const head = responseHeadOf(200, 'Fine', { 'x-bad': 'a\u0001b' }, 'req-1');
    expect(writeResponseHead(res, head as Exclude<typeof head, string>)).toBe('upstream response head cannot be written: ERR_INVALID_CHAR');
    expect(res.getHeaderNames()).toEqual([]);
  });
});

describe('responseHeadOf', () => {
  it("ends the relayed list with the gateway's X-Request-Id and drops the upstream's", () => {
    const head = responseHeadOf(200, undefined, { 'x-request-id': 'from-upstream', 'content-type': 'text/plain', connection: 'keep-alive' }, 'req-1');
    expect(head).toEqual({ statusCode: 200, statusMessage: undefined, headers: ['content-type', 'text/plain', 'x-request-id', 'req-1'] });
  });
});
