import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, formatIssue } from '../../src/config/errors.js';
import { loadGatewayConfig } from '../../src/config/load.js';
import { configFile } from '../helpers/config-file.js';

describe('gateway.yaml', () => {
  it('resolves accounts relative to the config file and freezes the result', async () => {
    const file = await configFile('accounts: ./people.yaml\n');
    const config = await loadGatewayConfig(file);
    expect(config.accounts).toBe(join(file, '..', 'people.yaml'));
    expect(Object.isFrozen(config.tokens)).toBe(true);
  });

  it('resolves every file it names relative to the config file, and remembers its own path', async () => {
    const file = await configFile(
      'keys: { encryption_key_file: ./secrets/kek }\nadmin: { token_file: ../admin-token }\ntls: { cert_file: tls/cert.pem, key_file: /etc/tls/key.pem }\npolicies: { folder: ./rules }\n',
    );
    const config = await loadGatewayConfig(file);
    const base = join(file, '..');
    expect(config.source).toBe(file);
    expect(config.keys.encryption_key_file).toBe(join(base, 'secrets/kek'));
    expect(config.admin.token_file).toBe(join(base, '../admin-token'));
    expect(config.tls).toMatchObject({ cert_file: join(base, 'tls/cert.pem'), key_file: '/etc/tls/key.pem' });
    expect(config.policies.folder).toBe(join(base, 'rules'));
  });

  it('freezes every level of the result', async () => {
    const config = await loadGatewayConfig(await configFile('routes:\n  - { path: /a, upstream: "http://x" }\n'));
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.routes[0])).toBe(true);
    expect(() => (config.routes as unknown as unknown[]).push({})).toThrow(TypeError);
  });

  it('lets --port override listen.port', async () => {
    const config = await loadGatewayConfig(await configFile('listen: { port: 9000 }\n'), { port: 9100 });
    expect(config.listen.port).toBe(9100);
  });

  it('reports a missing file by name', async () => {
    const error = (await loadGatewayConfig('/nonexistent/gateway.yaml').catch((caught: unknown) => caught)) as ConfigError;
    expect(formatIssue(error.issues[0]!)).toBe('/nonexistent/gateway.yaml: cannot read file (ENOENT)');
  });
});
