import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';

describe('the health probes on the client listener', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway({
      policies: { all: { policies: [{ name: 'no-loopback', kind: 'ip-range', rules: [{ deny: '127.0.0.0/8' }], default: 'allow' }] } },
      config: { policies: { defaults: ['no-loopback'] } },
    });
  });
  afterAll(() => tg.close());

  it('answers /livez and /readyz to GET and HEAD, whatever policies the defaults hold (a balancer must always reach them)', async () => {
    for (const method of ['GET', 'HEAD']) {
      expect((await fetch(`${tg.url}/livez`, { method })).status).toBe(200);
      expect((await fetch(`${tg.url}/readyz`, { method })).status).toBe(200);
    }
    expect((await fetch(`${tg.url}/oauth2/v1/keys`)).status).toBe(403); // the same default refuses everything else
  });

  it('says ready with its checks, as the admin listener does', async () => {
    const response = await fetch(`${tg.url}/readyz`);
    expect(await response.json()).toEqual({ status: 'ready', checks: { store: 'up', keys: 'loaded' } });
  });

  it('refuses other methods with 405', async () => {
    const response = await fetch(`${tg.url}/livez`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});
