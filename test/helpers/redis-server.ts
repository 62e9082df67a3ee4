import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from './eventually.js';

const run = promisify(execFile);

/** A port that is free now, and whose cluster bus port (+10000) is free too. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if ((await isFree(port)) && (await isFree(port + 10_000))) return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** Sends one inline command over a raw socket: no client library, so nothing retries behind the test's back. */
export function rawCommand(port: number, command: string, timeoutMs = 1_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no reply to ${command} on ${port}`));
    }, timeoutMs);
    socket.on('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.endsWith('\r\n') && (!reply.startsWith('$') || reply.split('\r\n').length > 2)) {
        clearTimeout(timer);
        socket.end();
        resolve(reply);
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

const waitFor = (condition: () => Promise<boolean>, what: string, timeoutMs = 10_000) => eventually(condition, { timeoutMs, intervalMs: 25, what });

/**
 * A real redis-server on a free port, without persistence (a restart comes
 * back empty, like a cache node that lost its data). Tests stop, kill and
 * restart it to produce real faults.
 */
export class RedisServer {
  private process: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly extraArgs: readonly string[],
    private readonly configFile: string | undefined,
  ) {}

  static async start(options: { port?: number; args?: readonly string[]; configFile?: string } = {}): Promise<RedisServer> {
    const dir = await mkdtemp(join(tmpdir(), 'token-gateway-redis-'));
    const server = new RedisServer(options.port ?? (await freePort()), dir, options.args ?? [], options.configFile);
    await server.launch();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.process !== undefined && this.process.exitCode === null && this.process.signalCode === null;
  }

  async launch(): Promise<void> {
    const persistence = this.configFile ? [] : ['--save', '', '--appendonly', 'no'];
    const args = [...(this.configFile ? [this.configFile] : []), '--port', String(this.port), '--bind', '127.0.0.1', ...persistence, '--dir', this.dir, ...this.extraArgs];
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    this.process = child;
    // -NOAUTH: up, and asking for the password it was started with.
    await waitFor(async () => /^(\+PONG|-NOAUTH)/.test(await rawCommand(this.port, 'PING', 200)), `redis-server on ${this.port}`);
  }

  /** SIGKILL: the process dies at once, connections drop without goodbye. */
  /** Sends `signal` to the server and returns at once: SIGSTOP freezes it with its connections open, SIGCONT thaws it. */
  signal(signal: NodeJS.Signals): void {
    this.process?.kill(signal);
  }

  kill(): Promise<void> {
    return this.terminate('SIGKILL');
  }

  stop(): Promise<void> {
    return this.terminate('SIGTERM');
  }

  /** Kills and starts again on the same port: empty, with a new run id. */
  async restart(): Promise<void> {
    await this.kill();
    await this.launch();
  }

  async dispose(): Promise<void> {
    await this.kill();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async terminate(signal: NodeJS.Signals): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }
}

/** Three real masters joined with `redis-cli --cluster create`. */
export class RedisCluster {
  private constructor(readonly nodes: readonly RedisServer[]) {}

  static async start(masters = 3): Promise<RedisCluster> {
    const nodes: RedisServer[] = [];
    for (let i = 0; i < masters; i++) {
      nodes.push(await RedisServer.start({ args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000'] }));
    }
    const cluster = new RedisCluster(nodes);
    try {
      await run('redis-cli', ['--cluster', 'create', ...nodes.map((node) => `127.0.0.1:${node.port}`), '--cluster-replicas', '0', '--cluster-yes']);
      for (const node of nodes) {
        await waitFor(async () => (await rawCommand(node.port, 'CLUSTER INFO')).includes('cluster_state:ok'), `cluster state on ${node.port}`, 20_000);
      }
    } catch (error) {
      await cluster.dispose();
      throw error;
    }
    return cluster;
  }

  get urls(): string[] {
    return this.nodes.map((node) => node.url);
  }

  async dispose(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.dispose()));
  }
}

/** A Redis Sentinel watching `master` under the name `name`. */
export async function startSentinel(master: RedisServer, name: string): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'token-gateway-sentinel-'));
  const file = join(dir, 'sentinel.conf');
  await writeFile(file, `sentinel monitor ${name} 127.0.0.1 ${master.port} 1\nsentinel down-after-milliseconds ${name} 1000\n`);
  return RedisServer.start({ configFile: file, args: ['--sentinel'] }).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
}

export interface TestCertificates {
  dir: string;
  ca: string;
  cert: string;
  key: string;
}

/** A throw-away CA and a server certificate for 127.0.0.1, made with the openssl CLI. */
export async function makeCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'token-gateway-tls-'));
  const at = (name: string) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  await run('openssl', ['req', '-x509', ...ec, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-days', '2', '-subj', '/CN=token-gateway test CA']);
  await run('openssl', ['req', ...ec, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=localhost']);
  await writeFile(at('ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  await run('openssl', ['x509', '-req', '-in', at('server.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial', '-out', at('server.pem'), '-days', '2', '-extfile', at('ext')]);
  return { dir, ca: at('ca.pem'), cert: at('server.pem'), key: at('server.key') };
}
