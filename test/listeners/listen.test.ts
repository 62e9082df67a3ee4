import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { StartupError } from '../../src/config/errors.js';
import { ADMIN_LISTENER, CLIENT_LISTENER, hostForUrl, listen, listenFailure, TLS_LISTENER, urlOf } from '../../src/listeners/listen.js';

const open: Server[] = [];
afterEach(() => Promise.all(open.splice(0).map((server) => new Promise((done) => server.close(done)))));
const server = () => {
  const created = createServer();
  open.push(created);
  return created;
};

describe('listening, and saying why not in the words of the config', () => {
  it('resolves with the address it bound', async () => {
    const address = await listen(server(), '127.0.0.1', 0, CLIENT_LISTENER);
    expect(address.address).toBe('127.0.0.1');
    expect(address.port).toBeGreaterThan(0);
  });

  it('names the listener keys and what to do when the port is taken', async () => {
    const { port } = await listen(server(), '127.0.0.1', 0, CLIENT_LISTENER);
    const failure = await listen(server(), '127.0.0.1', port, ADMIN_LISTENER).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StartupError);
    expect((failure as Error).message).toBe(
      `cannot listen (admin.host: 127.0.0.1, admin.port: ${port}): EADDRINUSE: another process listens there (another token-gateway?): stop it or choose another admin.port (0 picks a free one)`,
    );
  });

  it.each([
    ['EACCES', 'cannot listen (tls.host: 0.0.0.0, tls.port: 443): EACCES: not allowed: ports below 1024 need privileges (CAP_NET_BIND_SERVICE); choose another tls.port'],
    ['EADDRNOTAVAIL', 'cannot listen (tls.host: 0.0.0.0, tls.port: 443): EADDRNOTAVAIL: 0.0.0.0 is not an address of this machine: fix tls.host'],
  ])('explains %s', (code, message) => {
    const failure = listenFailure(Object.assign(new Error(code), { code }), '0.0.0.0', 443, TLS_LISTENER);
    expect(failure).toBeInstanceOf(StartupError);
    expect((failure as Error).message).toBe(message);
  });

  it('passes any other error through unchanged', () => {
    const other = Object.assign(new Error('odd'), { code: 'EINVAL' });
    expect(listenFailure(other, '127.0.0.1', 1, CLIENT_LISTENER)).toBe(other);
  });

  it('writes URLs with IPv6 hosts in brackets', () => {
    expect(hostForUrl('127.0.0.1')).toBe('127.0.0.1');
    expect(hostForUrl('::1')).toBe('[::1]');
    expect(urlOf('https', { address: '::1', port: 8443, family: 'IPv6' })).toBe('https://[::1]:8443');
    expect(urlOf('http', { address: '127.0.0.1', port: 8080, family: 'IPv4' })).toBe('http://127.0.0.1:8080');
  });
});
