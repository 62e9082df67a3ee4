import { afterEach, describe, expect, it } from 'vitest';
import { readOptions, type TokenClientOptions } from '../src/options.js';
import { DEFAULT_RENEW_AFTER_MS } from '../src/renewal-schedule.js';
import { TokenClient } from '../src/token-client.js';
import { json, startWireServer, type WireServer } from './helpers/wire-server.js';

const SECRET = 's3cret-XYZ';
const VALID: TokenClientOptions = { baseUrl: 'https://gw.example.com', clientId: 'app-one', clientSecret: SECRET, username: 'alice', password: SECRET };

describe('readOptions: checked once, at construction', () => {
  it('keeps the base URL without its trailing slashes, and its path', () => {
    expect(readOptions({ ...VALID, baseUrl: 'https://gw.example.com/eu/prod//' }).endpoint.baseUrl).toBe('https://gw.example.com/eu/prod');
    expect(readOptions({ ...VALID, baseUrl: new URL('http://127.0.0.1:8080/') }).endpoint.baseUrl).toBe('http://127.0.0.1:8080');
  });

  it('fills the documented defaults: 10 s per request, renewal at 28 minutes, Date.now', () => {
    const settings = readOptions(VALID);
    expect(settings.endpoint.timeoutMs).toBe(10_000);
    expect(settings.renewAfterMs).toBe(DEFAULT_RENEW_AFTER_MS);
    expect(settings.now).toBe(Date.now);
    expect(settings.endpoint).toMatchObject({ clientId: 'app-one', clientSecret: SECRET });
    expect(settings.user).toEqual({ username: 'alice', password: SECRET });
  });

  it('caps timeoutMs at the longest delay a timer holds, which AbortSignal.timeout would otherwise turn into 1 ms', () => {
    expect(readOptions({ ...VALID, timeoutMs: 30 * 86_400_000 }).endpoint.timeoutMs).toBe(2 ** 31 - 1);
  });

  it("allows the token to go to baseUrl's origin and the origins of apiOrigins, whatever path they were given with", () => {
    const settings = readOptions({ ...VALID, apiOrigins: ['https://eu.example.com/some/path', new URL('https://us.example.com:8443/')] });
    expect([...settings.allowedOrigins]).toEqual(['https://gw.example.com', 'https://eu.example.com', 'https://us.example.com:8443']);
  });

  it.each<[string, Partial<Record<keyof TokenClientOptions, unknown>>, string | RegExp]>([
    ['a baseUrl that is not http(s)', { baseUrl: 'ftp://gw.example.com' }, 'baseUrl must be an http:// or https:// URL'],
    ['a baseUrl with a query', { baseUrl: 'https://gw.example.com/?region=eu' }, 'baseUrl must not have a query or fragment'],
    ['a baseUrl with a fragment', { baseUrl: 'https://gw.example.com/#top' }, 'baseUrl must not have a query or fragment'],
    ['a baseUrl holding credentials', { baseUrl: `https://app-one:${SECRET}@gw.example.com` }, 'baseUrl must not hold credentials: use clientId and clientSecret'],
    ['a baseUrl that is no URL', { baseUrl: 'gw.example.com' }, 'baseUrl is not an absolute URL such as https://api.example.com'],
    ['a missing baseUrl', { baseUrl: undefined }, 'baseUrl must be a URL (a string or a URL object)'],
    ['a malformed baseUrl holding credentials', { baseUrl: `https://app-one:${SECRET}@gw example.com` }, 'baseUrl is not an absolute URL such as https://api.example.com'],
    ['a now that is not a function', { now: 5 }, 'now must be a function'],
    ['a fetch that is not a function', { fetch: 'x' }, 'fetch must be a function'],
    ['apiOrigins that is not a list', { apiOrigins: 'https://eu.example.com' }, 'apiOrigins must be a list of URLs'],
    ['an empty clientId', { clientId: '' }, 'clientId must be a non-empty string'],
    ['a missing clientSecret', { clientSecret: undefined }, 'clientSecret must be a non-empty string'],
    ['a clientSecret with a leading space', { clientSecret: ` ${SECRET}` }, 'clientSecret must be printable ASCII without leading or trailing spaces: it is sent as an HTTP header'],
    ['a clientSecret with a line break', { clientSecret: `${SECRET}\r\nx-injected: 1` }, /^clientSecret must be printable ASCII/],
    ['a clientId outside ASCII', { clientId: 'appé' }, /^clientId must be printable ASCII/],
    ['an empty username', { username: '' }, 'username must be a non-empty string'],
    ['a password that is not a string', { password: 1234 }, 'password must be a non-empty string'],
    ['a timeoutMs of 0', { timeoutMs: 0 }, 'timeoutMs must be a positive number of milliseconds'],
    ['a timeoutMs that is NaN', { timeoutMs: Number.NaN }, 'timeoutMs must be a positive number of milliseconds'],
    ['a timeoutMs that is infinite', { timeoutMs: Number.POSITIVE_INFINITY }, 'timeoutMs must be a positive number of milliseconds'],
    ['a timeoutMs in a string', { timeoutMs: '5000' }, 'timeoutMs must be a positive number of milliseconds'],
    ['a negative renewAfterMs', { renewAfterMs: -1 }, 'renewAfterMs must be a positive number of milliseconds'],
    ['an apiOrigin that is no URL', { apiOrigins: ['https://eu.example.com', 'eu.example.com'] }, 'apiOrigins[1] is not an absolute URL such as https://api.example.com'],
  ])('refuses %s with a TypeError that quotes no credential', (_, change, message) => {
    const options = { ...VALID, ...change } as TokenClientOptions;
    expect(() => readOptions(options)).toThrow(TypeError);
    expect(() => readOptions(options)).toThrow(message);
    // The public constructor is where the application meets it.
    expect(() => new TokenClient(options)).toThrow(message);
    try {
      readOptions(options);
    } catch (error) {
      // Nor anything an error logger prints: node's own URL error carried its input whole.
      expect(JSON.stringify({ ...(error as object), message: (error as Error).message, stack: (error as Error).stack })).not.toContain(SECRET);
    }
  });

  it('refuses a missing options object with a TypeError naming what it needs', () => {
    expect(() => new TokenClient(undefined as unknown as TokenClientOptions)).toThrow('the options must be an object: baseUrl, clientId, clientSecret, username, password');
  });
});

describe('the fetch option', () => {
  const realFetch = globalThis.fetch;
  let server: WireServer | undefined;
  afterEach(async () => {
    globalThis.fetch = realFetch;
    await server?.close();
    server = undefined;
  });

  it('defaults to the global fetch as it is at each call, so that one installed later is used', async () => {
    server = await startWireServer();
    server.answer(json(200, { ok: true }));
    const settings = readOptions({ ...VALID, baseUrl: server.url });
    const seen: string[] = [];
    // A wrapper around the real fetch, installed after the client was made: the request still goes over HTTP.
    globalThis.fetch = (input, init) => {
      seen.push(String(input));
      return realFetch(input, init);
    };
    const response = await settings.endpoint.fetch(`${server.url}/probe`);
    expect(response.status).toBe(200);
    expect(seen).toEqual([`${server.url}/probe`]);
    expect(server.seen.map((request) => request.url)).toEqual(['/probe']);
  });

  it('is required where the runtime has no global fetch', () => {
    // @ts-expect-error a runtime without fetch, for this test only (restored after it)
    delete globalThis.fetch;
    expect(() => readOptions(VALID)).toThrow(new TypeError('no global fetch in this runtime: pass the fetch option'));
    const fetch = async () => new Response('{}');
    expect(readOptions({ ...VALID, fetch }).endpoint.fetch).toBe(fetch);
  });
});
