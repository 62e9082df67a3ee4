import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from '../../src/config/load.js';
import { openClientListeners } from '../../src/listeners/client-listeners.js';
import { readTlsCredentials } from '../../src/listeners/tls-listener.js';
import { configFile } from '../helpers/config-file.js';
import { makeCertificates } from '../helpers/redis-server.js';

const bound: Server[] = [];
afterEach(() => Promise.all(bound.splice(0).map((server) => new Promise((done) => server.close(done)))));

describe('the client listeners', () => {
  it('binds plain HTTP alone without tls, and reports its URL and port', async () => {
    const config = await loadGatewayConfig(await configFile('listen: { host: 127.0.0.1, port: 0 }\n'));
    const listeners = await openClientListeners(config, undefined, (server) => void bound.push(server));
    expect(listeners.https).toBeUndefined();
    expect(listeners.httpsUrl).toBeUndefined();
    expect(listeners.all).toEqual([listeners.server]);
    expect(listeners.url).toBe(`http://127.0.0.1:${listeners.port}`);
    expect(bound).toEqual([listeners.server]);
  });

  it('binds HTTPS beside plain HTTP with tls, each told to `bound` as it binds', async () => {
    const certificates = await makeCertificates();
    const config = await loadGatewayConfig(
      await configFile(`listen: { host: 127.0.0.1, port: 0 }\ntls: { port: 0, cert_file: ${certificates.cert}, key_file: ${certificates.key} }\n`),
    );
    const listeners = await openClientListeners(config, await readTlsCredentials(config.tls!), (server) => void bound.push(server));
    expect(listeners.all).toHaveLength(2);
    expect(listeners.httpsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(bound).toEqual([listeners.server, listeners.https]);
  });

  it('fails the start on a taken port, naming listen.port, having bound nothing', async () => {
    const first = await openClientListeners(await loadGatewayConfig(await configFile('listen: { host: 127.0.0.1, port: 0 }\n')), undefined, (server) => void bound.push(server));
    const taken = await loadGatewayConfig(await configFile(`listen: { host: 127.0.0.1, port: ${first.port} }\n`));
    const told: Server[] = [];
    await expect(openClientListeners(taken, undefined, (server) => void told.push(server))).rejects.toThrow(`listen.port: ${first.port}): EADDRINUSE`);
    expect(told).toEqual([]);
  });
});
