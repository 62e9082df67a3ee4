import { existsSync, readFileSync, statSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run } from '../../src/cli/run.js';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';
import { loadGatewayConfig } from '../../src/config/load.js';
import type { GatewayConfig } from '../../src/config/schema.js';
import { ensureSecrets } from '../../src/deploy/secrets.js';
import { adminAccessOf } from '../../src/admin/access.js';
import { composeSchemaValidator } from './compose-schema.js';

// The image itself cannot be built here (a Docker client, no engine): these
// tests hold the compose file, the Dockerfile and the mounted gateway.yaml
// to each other and to the code, which is what a build would trip on.
const ROOT = resolve('.');
const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');
const DOCKERFILE = join(ROOT, 'Dockerfile');

interface Service {
  build?: unknown;
  image?: string;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
}

interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const composeText = readFileSync(COMPOSE_FILE, 'utf8');
// `merge`: the file shares the image's build settings between services with a YAML anchor and `<<`.
const compose = parse(composeText, { merge: true }) as ComposeFile;
const validateCompose = composeSchemaValidator();
const service = (name: string): Service => {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service "${name}"`);
  return found;
};

interface Mount {
  source: string;
  target: string;
  readOnly: boolean;
  /** A named volume rather than a path on the host. */
  named: boolean;
}

/** Compose's short volume syntax: SOURCE:TARGET[:MODE]. */
function mountsOf(name: string): Mount[] {
  return (service(name).volumes ?? []).map((spec) => {
    const [source = '', target = '', mode = 'rw'] = spec.split(':');
    return { source, target, readOnly: mode.split(',').includes('ro'), named: !/^[./~]/.test(source) };
  });
}

const mountAt = (name: string, target: string): Mount | undefined => mountsOf(name).find((mount) => mount.target === target);

/** The Dockerfile's exec-form instruction, e.g. CMD ["serve", ...], as its JSON array. */
function dockerfileExec(instruction: 'CMD' | 'ENTRYPOINT'): string[] {
  const line = readFileSync(DOCKERFILE, 'utf8')
    .split('\n')
    .filter((text) => text.startsWith(`${instruction} `))
    .at(-1);
  if (!line) throw new Error(`the Dockerfile has no ${instruction}`);
  return JSON.parse(line.slice(instruction.length + 1)) as string[];
}

function capture() {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

const CONFIG_FOLDER_IN_CONTAINER = '/etc/token-gateway/config';
const CONFIG_IN_CONTAINER = `${CONFIG_FOLDER_IN_CONTAINER}/gateway.yaml`;

describe('docker-compose.yml', () => {
  it('is valid by the Compose Specification schema', () => {
    expect(validateCompose(compose)).toEqual({ valid: true, errors: [] });
  });

  it('needs no variable to be set (no ${...} interpolation anywhere)', () => {
    expect(composeText).not.toMatch(/\$\{?[A-Za-z_]/);
  });

  it.each([
    ['an unknown service key', (file: ComposeFile) => Object.assign(file.services.gateway!, { portz: ['8080:8080'] }), 'must NOT have additional properties'],
    ['an unknown depends_on condition', (file: ComposeFile) => (file.services.gateway!.depends_on!.redis!.condition = 'service_ready'), 'must be equal to one of the allowed values'],
    ['a duration Compose cannot read', (file: ComposeFile) => Object.assign(file.services.redis!.healthcheck!, { interval: '5 seconds' }), 'must match format "duration"'],
    ['a port spec Compose cannot read', (file: ComposeFile) => (file.services.gateway!.ports = ['127.0.0.1:8080:http']), 'must match format "ports"'],
    ['a volume with no definition', (file: ComposeFile) => Object.assign(file, { volumes: { 'redis-data': 'yes' } }), 'must be object'],
  ])('and the schema refuses it with %s', (_rule, spoil, message) => {
    const spoilt = structuredClone(compose);
    spoil(spoilt);
    const verdict = validateCompose(spoilt);
    expect(verdict.valid).toBe(false);
    expect(verdict.errors.join('\n')).toContain(message);
  });

  it('runs Redis with append-only persistence on a named volume, health-checked with redis-cli ping', () => {
    const redis = service('redis');
    expect(redis.image).toMatch(/^redis:7(\.|$)/);
    const command = redis.command ?? [];
    expect(command[0]).toBe('redis-server');
    expect(command[command.indexOf('--appendonly') + 1]).toBe('yes');
    const data = mountAt('redis', '/data');
    expect(data).toMatchObject({ named: true, readOnly: false });
    expect(compose.volumes).toHaveProperty(data?.source ?? '');
    expect(redis.healthcheck?.test?.join(' ')).toContain('redis-cli ping');
  });

  it('mounts gateway.yaml, policies/ and the accounts into the gateway, and publishes its ports on loopback only', () => {
    const gateway = service('gateway');
    expect(gateway.build).toBeDefined();
    const config = mountAt('gateway', CONFIG_FOLDER_IN_CONTAINER);
    expect(config).toMatchObject({ source: './docker/config', named: false });
    expect(existsSync(join(ROOT, config?.source ?? '-', 'gateway.yaml'))).toBe(true);
    expect(existsSync(join(ROOT, config?.source ?? '-', 'accounts.yaml'))).toBe(true);
    expect(mountAt('gateway', '/etc/token-gateway/policies')).toMatchObject({ source: './policies', named: false });
    expect(gateway.ports).toEqual(expect.arrayContaining(['127.0.0.1:8080:8080', '127.0.0.1:9901:9901']));
    for (const port of gateway.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/);
  });

  it('mounts folders only, so that a file saved by rename (an editor, `users add`) reaches the running gateway', () => {
    // A single-file bind mount pins the inode it was given: the replaced file
    // never appears in the container and the reload never sees the edit.
    for (const mount of mountsOf('gateway').filter((each) => !each.named)) {
      expect(statSync(join(ROOT, mount.source)).isDirectory(), `${mount.source} is a file mount`).toBe(true);
    }
  });

  it('mounts the DEMO accounts that README.md publishes: docker/config/accounts.yaml is the repository\'s accounts.yaml', () => {
    expect(readFileSync(join(ROOT, 'docker/config/accounts.yaml'), 'utf8')).toBe(readFileSync(join(ROOT, 'accounts.yaml'), 'utf8'));
  });

  it('starts the gateway after Redis is healthy and the secrets job has finished, from a volume only that job writes', () => {
    expect(service('gateway').depends_on).toMatchObject({
      redis: { condition: 'service_healthy' },
      secrets: { condition: 'service_completed_successfully' },
      upstream: { condition: expect.any(String) },
    });
    const secretsDir = service('secrets').command?.[0];
    const written = mountsOf('secrets').find((mount) => mount.target === secretsDir);
    expect(written).toMatchObject({ named: true, readOnly: false });
    expect(mountAt('gateway', secretsDir ?? '-')).toMatchObject({ source: written?.source, named: true, readOnly: true });
  });

  it('runs only files the build produces', () => {
    const scripts = [
      ...['upstream', 'secrets'].map((name) => service(name).entrypoint?.[1]),
      dockerfileExec('ENTRYPOINT').at(-1),
      /CMD \["node", "([^"]+)"\]/.exec(readFileSync(DOCKERFILE, 'utf8'))?.[1], // the HEALTHCHECK
    ];
    for (const script of scripts) {
      expect(script).toMatch(/^dist\/.+\.js$/);
      expect(existsSync(join(ROOT, script!.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'))), `${script} has no source`).toBe(true);
    }
  });
});

describe('Dockerfile', () => {
  const text = readFileSync(DOCKERFILE, 'utf8');

  it('serves the config path that the compose file mounts', () => {
    const cmd = dockerfileExec('CMD');
    expect(cmd[0]).toBe('serve');
    expect(cmd[cmd.indexOf('--config') + 1]).toBe(CONFIG_IN_CONTAINER);
    expect(dockerfileExec('ENTRYPOINT')).toEqual(['node', ...NODE_FLAGS, 'dist/cli/main.js']);
  });

  it('builds on a pinned Node 20 bookworm-slim, runs as node in production mode, and exposes the published ports', () => {
    expect(text).toMatch(/^ARG NODE_IMAGE=node:20\.\d+-bookworm-slim/m);
    expect(text).toMatch(/npm ci --omit=dev/);
    expect(text).toMatch(/^USER node$/m);
    expect(text).toMatch(/^ENV NODE_ENV=production$/m);
    const exposed = /^EXPOSE (.+)$/m.exec(text)?.[1]?.split(/\s+/) ?? [];
    expect(exposed).toEqual(expect.arrayContaining(['8080', '8443', '9901']));
    for (const port of service('gateway').ports ?? []) expect(exposed).toContain(port.split(':').at(-1));
    expect(text).toMatch(/^STOPSIGNAL SIGTERM$/m);
  });
});

/**
 * The container's view of /etc/token-gateway rebuilt in a temporary folder
 * from the gateway's mounts (host paths copied, the secrets volume filled by
 * the secrets job's own code), so that `check` reads exactly what the
 * container would.
 */
describe('the mounted gateway.yaml', () => {
  let root: string;
  let configFile: string;
  let config: GatewayConfig;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'token-gateway-compose-'));
    for (const mount of mountsOf('gateway')) {
      const target = join(root, mount.target);
      if (mount.named) await ensureSecrets(target);
      else await cp(join(ROOT, mount.source), target, { recursive: true });
    }
    configFile = join(root, CONFIG_IN_CONTAINER);
    config = await loadGatewayConfig(configFile);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('passes `token-gateway check` with the secrets the secrets job makes', async () => {
    const stdout = capture();
    const stderr = capture();
    const code = await run(['check', '--config', configFile], { stdin: Readable.from([]), stdout: stdout.stream, stderr: stderr.stream });
    expect(stderr.text()).toBe('');
    expect(code).toBe(0);
    expect(stdout.text()).toMatch(/^ok: .*store redis redis:6379/);
  });

  it('reads the admin token from the secrets volume, as a listener reachable from the network requires', async () => {
    expect(config.admin.host).toBe('0.0.0.0');
    expect((await adminAccessOf(config)).token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('names the compose services and ports: redis, the upstream, and what the gateway publishes', () => {
    expect(config.store).toMatchObject({ kind: 'redis', topology: { mode: 'single', url: 'redis://redis:6379' } });
    expect(config.environment).toBeDefined();
    expect(config.listen).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(config.admin.port).toBe(9901);
    expect(config.issuer).toBe('http://localhost:8080');
    const upstream = service('upstream').environment ?? {};
    expect(config.routes.map((route) => route.upstream)).toContain(`http://upstream:${upstream.DEMO_UPSTREAM_PORT}`);
    expect(upstream.DEMO_UPSTREAM_HOST).toBe('0.0.0.0');
    // Every file the gateway reads or watches lies in a mounted folder: gateway.yaml and accounts.yaml in the config folder.
    expect(dirname(config.accounts)).toBe(dirname(configFile));
    expect(config.policies.folder).toBe(join(root, '/etc/token-gateway/policies'));
  });
});
