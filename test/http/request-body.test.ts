import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, errorOf, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/eventually.js';
import { assertAnnouncedSizeWithin, RequestBody } from '../../src/http/request-body.js';
import { GatewayError, isGatewayError } from '../../src/errors/gateway-error.js';

/** A request whose body arrives in `chunks`, announcing `contentLength` if given. */
const incoming = (chunks: string[], contentLength?: number) =>
  Object.assign(Readable.from(chunks.map((chunk) => Buffer.from(chunk))), { headers: contentLength === undefined ? {} : { 'content-length': String(contentLength) } }) as unknown as IncomingMessage;
const codeOf = (error: unknown) => (isGatewayError(error) ? error.code : error);

describe('RequestBody (read at most once, shared by every phase)', () => {
  it('reads the whole body once, and gives every later reader the same bytes', async () => {
    const body = new RequestBody(incoming(['{"a":', '1}']), 100);
    expect(body.isBuffered).toBe(false);
    expect(body.contents).toBeUndefined();
    expect(await body.text()).toBe('{"a":1}');
    expect(body.isBuffered).toBe(true);
    expect((await body.read()).toString()).toBe('{"a":1}');
    expect(body.contents?.toString()).toBe('{"a":1}');
  });

  it('shows an observer every chunk as it arrives, and the whole body when it was read already', async () => {
    const body = new RequestBody(incoming(['ab', 'cd']), 100);
    const seen: string[] = [];
    await body.read((chunk) => void seen.push(chunk.toString()));
    expect(seen).toEqual(['ab', 'cd']);
    const later: string[] = [];
    await body.read((chunk) => void later.push(chunk.toString()));
    expect(later).toEqual(['abcd']);
  });

  it('stops reading when the observer refuses a chunk (with a GatewayError, passed on as it is)', async () => {
    const refusal = new GatewayError('JSON_THREAT', { detail: 'too deep' });
    const seen: string[] = [];
    const body = new RequestBody(incoming(['ok', 'bad', 'never']), 100);
    await expect(body.read((chunk) => {
      seen.push(chunk.toString());
      if (chunk.toString() === 'bad') throw refusal;
    })).rejects.toBe(refusal);
    expect(seen).toEqual(['ok', 'bad']);
  });

  it('refuses a body past its limit with 413, announced or not', async () => {
    expect(codeOf(await new RequestBody(incoming(['x'.repeat(6), 'x'.repeat(6)]), 10).read().catch((error: unknown) => error))).toBe('PAYLOAD_TOO_LARGE');
    expect(codeOf(await new RequestBody(incoming(['tiny'], 11), 10).read().catch((error: unknown) => error))).toBe('PAYLOAD_TOO_LARGE');
    expect(() => assertAnnouncedSizeWithin(incoming([], 10), 10)).not.toThrow();
  });
});

describe('request bodies', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway({ config: { limits: { oauth_body_size: '1kb' } } });
  });
  afterAll(() => tg.close());

  const postToken = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${tg.url}/oauth2/v1/token`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('refuses a token request body over the limit with 413', async () => {
    const response = await postToken(JSON.stringify({ username: 'x'.repeat(2_000) }));
    expect(response.headers.get('connection')).toBe('close');
    expect(await errorOf(response)).toMatchObject({ status: 413, errorCode: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('clients that hang up', () => {
  it('logs a client abort mid-body as a 499 request, not as a server failure', async () => {
    const tg = await bootGateway();
    try {
      const { hostname, port } = new URL(tg.url);
      await new Promise<void>((done) => {
        const socket = connect(Number(port), hostname, () => {
          socket.write('POST /oauth2/v1/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user');
          socket.destroy();
        });
        socket.on('close', () => done());
      });
      await eventually(() => tg.logs.some((line) => line.msg === 'request'), { what: 'the access line of the abandoned request' });
      expect(tg.logs.find((line) => line.msg === 'request')).toMatchObject({ status: 499, errorCode: 'MALFORMED_REQUEST' });
      expect(tg.logs.filter((line) => (line.level as number) >= 50)).toEqual([]);
    } finally {
      await tg.close();
    }
  });
});
