import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { accountsYaml } from './accounts.js';
import { eventually } from './eventually.js';

const BIN = resolve('dist/cli/main.js');

/** One key-encryption key per test run, shared by every gateway process of the run (as in one environment). */
export const TEST_KEK = randomBytes(32).toString('base64');

/**
 * A real gateway process (`token-gateway serve`), as operators run it: its
 * own event loop, its own Redis connections, killed and restarted by tests.
 */
export class GatewayProcess {
  readonly lines: Array<Record<string, unknown>> = [];
  private readonly exited: Promise<number | null>;
  private readonly closed: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    /** The admin listener (metrics, probes, admin API): the primary's with `workers: N`. */
    readonly adminUrl: string,
    private readonly dir: string,
    stdoutLines: Array<Record<string, unknown>>,
    /** Everything the process wrote, byte for byte as text, for scans that must not depend on parsing. */
    readonly output: { stdout: string; stderr: string },
  ) {
    this.lines = stdoutLines;
    this.exited = new Promise((done) => child.once('exit', (code) => done(code)));
    this.closed = new Promise((done) => child.once('close', () => done()));
  }

  /**
   * `launcher`: the command line before `serve --config ...`; by default node running the built binary, as the
   * other launchers (the binary's first line, npm start, the image) do with their own node flags.
   * `argumentsFor`: what follows the launcher, given the gateway.yaml written; `serve --config <file>` unless the
   * launcher runs another program that starts the gateway (bench/gateway-process.mjs).
   */
  static async start(
    config: Record<string, unknown>,
    env: Record<string, string> = {},
    launcher: readonly [string, ...string[]] = [process.execPath, BIN],
    argumentsFor: (configFile: string) => string[] = (configFile) => ['serve', '--config', configFile],
  ): Promise<GatewayProcess> {
    const dir = await mkdtemp(join(tmpdir(), 'token-gateway-proc-'));
    await writeFile(join(dir, 'accounts.yaml'), await accountsYaml());
    await writeFile(join(dir, 'gateway.yaml'), stringify({ listen: { host: '127.0.0.1', port: 0 }, admin: { port: 0 }, accounts: './accounts.yaml', ...config }));
    const [command, ...leading] = launcher;
    const child = spawn(command, [...leading, ...argumentsFor(join(dir, 'gateway.yaml'))], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TOKEN_GATEWAY_KEY_ENCRYPTION_KEY: TEST_KEK, ...env },
    });
    const lines: Array<Record<string, unknown>> = [];
    const output = { stdout: '', stderr: '' };
    child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
    const { url, adminUrl } = await new Promise<{ url: string; adminUrl: string }>((resolveUrl, reject) => {
      let buffered = '';
      // One process: both URLs in its 'token-gateway listening' line. `workers: N`: the primary's 'admin listening'
      // line has the admin URL (it alone opens that listener) and the workers' lines the URL they share.
      let found: { url?: string; adminUrl?: string } = {};
      const note = (line: Record<string, unknown>) => {
        if (line.msg === 'token-gateway listening') found = { ...found, url: line.url as string, adminUrl: (line.adminUrl as string | undefined) ?? found.adminUrl };
        if (line.msg === 'admin listening') found = { ...found, adminUrl: line.adminUrl as string };
        if (found.url !== undefined && found.adminUrl !== undefined) resolveUrl({ url: found.url, adminUrl: found.adminUrl });
      };
      child.stdout?.on('data', (chunk: Buffer) => {
        output.stdout += chunk.toString();
        buffered += chunk.toString();
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          try {
            const parsed = JSON.parse(line) as Record<string, unknown>;
            lines.push(parsed);
            note(parsed);
          } catch {
            lines.push({ unparsed: line });
          }
        }
      });
      child.once('exit', (code) => reject(new Error(`gateway exited with ${code} before listening: ${output.stderr}`)));
      child.once('error', (error) => reject(new Error(`gateway could not be started: ${error.message}`)));
      setTimeout(() => reject(new Error(`gateway did not listen within 15 s: ${output.stderr}`)), 15_000).unref();
    });
    return new GatewayProcess(child, url, adminUrl, dir, lines, output);
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  signal(name: NodeJS.Signals): void {
    this.child.kill(name);
  }

  /** Resolves with the exit code once the process has exited. */
  get exit(): Promise<number | null> {
    return this.exited;
  }

  /** Resolves once the process has exited and its stdout and stderr are read to the end (`output` is then complete). */
  get outputComplete(): Promise<void> {
    return this.closed;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Polls /readyz until it answers 200 `ready` (not `degraded`: the store must answer too); bounded. */
  async ready(timeoutMs = 15_000): Promise<void> {
    const ready = async () => {
      const response = await fetch(`${this.url}/readyz`);
      return response.status === 200 && ((await response.json()) as { status: string }).status === 'ready';
    };
    await eventually(ready, { timeoutMs, intervalMs: 50, what: `${this.url}/readyz to answer 200 ready` });
  }

  /** Log lines at error level or above, and every access line with a 5xx other than 503. */
  failures(): Array<Record<string, unknown>> {
    return this.lines.filter((line) => (line.level as number) >= 50 || (typeof line.status === 'number' && line.status >= 500 && line.status !== 503));
  }

  async stop(): Promise<number | null> {
    if (this.alive) this.child.kill('SIGTERM');
    const code = await this.exited;
    await rm(this.dir, { recursive: true, force: true });
    return code;
  }
}
