import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifySecret } from '../../src/accounts/secret-hash.js';
import { accountsYaml } from '../helpers/accounts.js';
import { BIN, runCli } from '../helpers/processes.js';


async function workspace(gatewayYaml: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tg-cli-'));
  await writeFile(join(dir, 'accounts.yaml'), await accountsYaml());
  await writeFile(join(dir, 'gateway.yaml'), gatewayYaml);
  return join(dir, 'gateway.yaml');
}

describe('token-gateway CLI', () => {
  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` (npm test does it)`);
  });

  describe('hash-secret', () => {
    it('prints only an argon2id hash of stdin without its trailing newline', async () => {
      const { code, stdout, stderr } = await runCli(['hash-secret'], 'correct horse\n');
      expect(code).toBe(0);
      expect(stderr).toBe('');
      const lines = stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^\$argon2id\$/);
      expect(await verifySecret(lines[0]!, 'correct horse')).toBe(true);
      expect(await verifySecret(lines[0]!, 'correct horse\n')).toBe(false);
    });

    it('keeps inner and leading whitespace, strips only one CRLF', async () => {
      const { stdout } = await runCli(['hash-secret'], ' two words \r\n');
      expect(await verifySecret(stdout.trim(), ' two words ')).toBe(true);
    });

    it('refuses an empty secret', async () => {
      const { code, stdout, stderr } = await runCli(['hash-secret'], '\n');
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toContain('empty');
    });
  });

  describe('check', () => {
    it('exits 0 for a valid config and the files it names', async () => {
      const file = await workspace('accounts: ./accounts.yaml\n');
      const { code, stdout } = await runCli(['check', '--config', file]);
      expect(code).toBe(0);
      expect(stdout).toContain('ok:');
      expect(stdout).toContain('3 apps');
    });

    it('exits 1 naming the file, line, key and problem', async () => {
      const file = await workspace('accounts: ./accounts.yaml\ntokens:\n  access_ttl: soon\n');
      const { code, stderr } = await runCli(['check', '--config', file]);
      expect(code).toBe(1);
      expect(stderr).toContain(`${file}:3: tokens.access_ttl: expected a duration`);
    });

    it('checks that a Redis store has its secrets, without connecting and without printing them', async () => {
      const file = await workspace(
        'environment: uat\nstore: redis://:url-password@10.255.255.1:6379/0\nkeys: { encryption_key_file: ./kek }\naccounts: ./accounts.yaml\n',
      );
      const missing = await runCli(['check', '--config', file]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('keys.encryption_key_file: cannot read');
      await writeFile(join(dirname(file), 'kek'), randomBytes(32).toString('base64'));
      const { code, stdout, stderr } = await runCli(['check', '--config', file]);
      expect(code).toBe(0);
      expect(stdout).toContain('store redis 10.255.255.1:6379/0');
      expect(stdout + stderr).not.toContain('url-password');
    });

    it('refuses an admin.token_file that serve would refuse: missing, then too short, without printing it', async () => {
      const file = await workspace('accounts: ./accounts.yaml\nadmin: { token_file: ./admin-token }\n');
      const missing = await runCli(['check', '--config', file]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('admin.token_file: cannot read');
      await writeFile(join(dirname(file), 'admin-token'), 'short-secret\n');
      const short = await runCli(['check', '--config', file]);
      expect(short.code).toBe(1);
      expect(short.stderr).toContain('an admin token needs at least 16');
      expect(short.stdout + short.stderr).not.toContain('short-secret');
      await writeFile(join(dirname(file), 'admin-token'), `${randomBytes(32).toString('base64')}\n`);
      expect((await runCli(['check', '--config', file])).code).toBe(0);
    });

    it('validates the accounts file the config names', async () => {
      const file = await workspace('accounts: ./missing.yaml\n');
      const { code, stderr } = await runCli(['check', '--config', file]);
      expect(code).toBe(1);
      expect(stderr).toContain('missing.yaml: cannot read file (ENOENT)');
    });
  });

  describe('serve', () => {
    it('serves on --port and stops cleanly on SIGTERM', async () => {
      const file = await workspace('listen: { host: 127.0.0.1, port: 1 }\nadmin: { port: 0 }\naccounts: ./accounts.yaml\n');
      const child = spawn(process.execPath, [BIN, 'serve', '--config', file, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
      const url = await new Promise<string>((found, failed) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /"url":"(http:\/\/[^"]+)"/.exec(out);
          if (match) found(match[1]!);
        });
        child.on('close', (code) => failed(new Error(`exited ${code} before listening`)));
      });
      const response = await fetch(`${url}/.well-known/openid-configuration`);
      expect(response.status).toBe(200);
      const exited = new Promise<number | null>((done) => child.on('close', done));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    });

    it('exits 1 with the problem when the config is invalid', async () => {
      const file = await workspace('listen: { prot: 1 }\n');
      const { code, stderr } = await runCli(['serve', '--config', file]);
      expect(code).toBe(1);
      expect(stderr).toContain('listen.prot: unknown key');
    });

    it('names the listener and the key to change when its port is taken (a second gateway on the host)', async () => {
      const taken = createServer();
      await new Promise<void>((listening) => taken.listen(0, '127.0.0.1', listening));
      const { port } = taken.address() as AddressInfo;
      try {
        for (const [yaml, key] of [
          [`listen: { host: 127.0.0.1, port: 0 }\nadmin: { port: ${port} }\n`, 'admin.port'],
          [`listen: { host: 127.0.0.1, port: ${port} }\nadmin: { port: 0 }\n`, 'listen.port'],
        ] as const) {
          const file = await workspace(`${yaml}accounts: ./accounts.yaml\n`);
          const { code, stderr } = await runCli(['serve', '--config', file]);
          expect(code).toBe(1);
          expect(stderr).toContain(`${key}: ${port}): EADDRINUSE: another process listens there`);
          expect(stderr).toContain(`choose another ${key}`);
        }
      } finally {
        taken.close();
      }
    });

    it('refuses to start on Redis without a key-encryption key, and says how to make one', async () => {
      const file = await workspace('environment: uat\nstore: redis://127.0.0.1:1/0\naccounts: ./accounts.yaml\n');
      const { code, stderr } = await runCli(['serve', '--config', file]);
      expect(code).toBe(1);
      expect(stderr).toContain('set TOKEN_GATEWAY_KEY_ENCRYPTION_KEY to 32 random bytes in base64');
      expect(stderr).toContain('openssl rand -base64 32');
    });

    it('refuses to start when the Redis password variable it names is unset', async () => {
      const file = await workspace(
        'environment: uat\nstore: { redis: { url: "redis://127.0.0.1:1/0", password_env: TG_TEST_UNSET_PASSWORD } }\n' +
          'keys: { encryption_key_file: ./kek }\naccounts: ./accounts.yaml\n',
      );
      await writeFile(join(dirname(file), 'kek'), randomBytes(32).toString('base64'));
      const { code, stderr } = await runCli(['serve', '--config', file]);
      expect(code).toBe(1);
      expect(stderr).toContain('store.redis.password_env names TG_TEST_UNSET_PASSWORD, which is not set');
    });
  });

  it.each([
    [['bogus'], 'unknown command'],
    [['serve', '--port', 'eighty'], '--port must be a whole number'],
    [['check', '--nope'], "Unknown option '--nope'"],
    [[], 'usage: token-gateway'],
  ])('exits 2 with usage for %j', async (args, message) => {
    const { code, stdout, stderr } = await runCli(args);
    expect(code).toBe(2);
    expect(stdout + stderr).toContain(message);
  });
});
