import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJsonText, sendRecord } from '../../src/http/respond.js';

describe('writing a record as JSON or XML', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const format = req.headers.accept === 'application/xml' ? 'xml' : 'json';
      if (req.url === '/text') return sendJsonText(res, 200, '{"cached":true}', { 'Content-Type': 'application/jwk-set+json' });
      sendRecord(res, 201, { name: 'é', count: 2 }, { format, xmlRoot: 'Thing' }, { 'Cache-Control': 'no-store' });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  it('writes JSON with its byte length and the headers given', async () => {
    const response = await fetch(`${url}/record`);
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ name: 'é', count: 2 });
    expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text));
  });

  it('writes XML when the client asked for it', async () => {
    const response = await fetch(`${url}/record`, { headers: { accept: 'application/xml' } });
    expect(response.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(await response.text()).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<Thing><name>é</name><count>2</count></Thing>\n');
  });

  it('answers HEAD with the headers and no body', async () => {
    const response = await fetch(`${url}/record`, { method: 'HEAD' });
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength('{"name":"é","count":2}')));
    expect(await response.text()).toBe('');
  });

  it('lets a more specific Content-Type win for JSON serialised in advance', async () => {
    const response = await fetch(`${url}/text`);
    expect(response.headers.get('content-type')).toBe('application/jwk-set+json');
    expect(await response.json()).toEqual({ cached: true });
  });
});
