import { expect } from 'vitest';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Clock } from '../../src/clock.js';
import { loadGatewayConfig } from '../../src/config/load.js';
import { startGateway, type RunningGateway } from '../../src/lifecycle/start.js';
import { accountsYaml, APP, USER } from './accounts.js';
import { eventually } from './eventually.js';
import { startUpstream, type TestUpstream } from './upstream.js';

export interface TestGateway {
  gateway: RunningGateway;
  upstream: TestUpstream;
  url: string;
  /** Every log line the gateway wrote, parsed. */
  logs: Array<Record<string, unknown>>;
  /** The folder holding gateway.yaml, accounts.yaml and policies/. */
  dir: string;
  /** Writes (or replaces) policies/<name>.yaml. */
  writePolicies(name: string, file: PolicyFile | string): Promise<void>;
  rawLogs: string[];
  close(): Promise<void>;
}

export interface BootOptions {
  /**
   * gateway.yaml keys merged over the test defaults (one protected route to a
   * real upstream); a function receives that upstream's URL.
   */
  config?: Record<string, unknown> | ((upstreamUrl: string) => Record<string, unknown>);
  clock?: Clock;
  /**
   * Reload when gateway.yaml or accounts.yaml changes (default true). A test
   * that calls reload() itself and asserts its outcome turns it off: the
   * watcher's own reload would otherwise race it for the same edit.
   */
  watchConfig?: boolean;
  /** Files of the policies folder, by name (without .yaml). */
  policies?: Record<string, PolicyFile | string>;
  /** Policy names per app, written to accounts.yaml as `apps[].policies`. */
  appPolicies?: Record<string, string[]>;
  /** Other keys per app in accounts.yaml, e.g. `{ 'app-two': { form_encoded: true, introspect: 'any' } }`. */
  appSettings?: Record<string, Record<string, string | boolean>>;
}

export interface PolicyFile {
  policies: Array<Record<string, unknown>>;
}

/** A real gateway on a free port, loaded from real YAML files, in front of a real upstream. */
export async function bootGateway(options: BootOptions = {}): Promise<TestGateway> {
  const upstream = await startUpstream();
  const dir = await mkdtemp(join(tmpdir(), 'token-gateway-test-'));
  const config = {
    listen: { host: '127.0.0.1', port: 0 },
    admin: { host: '127.0.0.1', port: 0 },
    accounts: './accounts.yaml',
    routes: [{ path: '/business/score/v2/', upstream: upstream.url, timeout: '2s' }],
    ...(typeof options.config === 'function' ? options.config(upstream.url) : options.config),
  };
  await writeFile(join(dir, 'accounts.yaml'), await accountsYaml(options.appPolicies, options.appSettings));
  await writeFile(join(dir, 'gateway.yaml'), stringify(config));
  const writePolicies = async (name: string, file: PolicyFile | string) => {
    await mkdir(join(dir, 'policies'), { recursive: true });
    // Written aside and renamed, as editors and config tooling do: the watcher never sees half a file.
    const target = join(dir, 'policies', `${name}.yaml`);
    await writeFile(`${target}.tmp`, typeof file === 'string' ? file : stringify(file));
    await rename(`${target}.tmp`, target);
  };
  for (const [name, file] of Object.entries(options.policies ?? {})) await writePolicies(name, file);
  const rawLogs: string[] = [];
  const gateway = await startGateway({
    config: await loadGatewayConfig(join(dir, 'gateway.yaml')),
    clock: options.clock,
    watchConfig: options.watchConfig,
    logDestination: { write: (line: string) => void rawLogs.push(line) },
    shutdownGraceMs: 1_000,
  });
  return {
    gateway,
    upstream,
    url: gateway.url,
    rawLogs,
    dir,
    writePolicies,
    get logs() {
      return rawLogs.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    async close() {
      await gateway.close();
      await upstream.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface TokenResponse {
  issued_at: string;
  expires_in: string;
  token_type: string;
  access_token: string;
  refresh_token: string;
}

/** The spec's password grant, with the test user and app unless told otherwise. */
export function passwordGrant(url: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/oauth2/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ username: USER.username, password: USER.password, ...APP, ...body }),
  });
}

export async function issueTokens(url: string, body: Record<string, unknown> = {}): Promise<TokenResponse> {
  const response = await passwordGrant(url, body);
  if (response.status !== 200) throw new Error(`password grant failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as TokenResponse;
}

/** The spec's refresh grant: every parameter a header (SPEC 4.4). */
export function refreshGrant(url: string, refreshToken: string, client: { client_id: string; client_secret: string } = APP): Promise<Response> {
  return fetch(`${url}/oauth2/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', grant_type: 'refresh_token', refresh_token: refreshToken, ...client },
  });
}

export function revoke(url: string, token: string, client: { client_id: string; client_secret: string } = APP): Promise<Response> {
  return fetch(`${url}/oauth2/v1/revokeToken`, { method: 'POST', headers: { token, ...client } });
}

/** Resolves once the gateway at `url` says `degraded` on /readyz (its store away, protected calls served from memory); bounded. */
export async function untilDegraded(url: string, timeoutMs = 5_000): Promise<void> {
  const degraded = async () => ((await (await fetch(`${url}/readyz`)).json()) as { status: string }).status === 'degraded';
  await eventually(degraded, { timeoutMs, what: `${url}/readyz to say degraded` });
}

export function callProtected(url: string, accessToken: string | undefined, path = '/business/score/v2/directors'): Promise<Response> {
  return fetch(`${url}${path}`, { headers: accessToken === undefined ? {} : { authorization: `Bearer ${accessToken}` } });
}

export interface Envelope {
  success: boolean;
  requestId: string;
  errors: Array<{ errorCode: string; errorType: string; message: string }>;
  error?: string;
  error_description?: string;
}

/** Reads an error response and returns the parts tests assert on. */
export async function errorOf(response: Response): Promise<{ status: number; errorCode: string | undefined; body: Envelope }> {
  const body = (await response.json()) as Envelope;
  return { status: response.status, errorCode: body.errors?.[0]?.errorCode, body };
}

/**
 * An OAuth endpoint's refusal, whole: the status, the spec's envelope with its
 * error row (400 is a Bad Request, the rest Unauthorized), RFC 6749's
 * `error` and `error_description`, and a request id.
 */
export async function expectOAuthError(response: Response, expected: { status: number; errorCode: string; oauthError: string; message: string }): Promise<void> {
  const { status, errorCode, oauthError, message } = expected;
  const { status: got, body: envelope } = await errorOf(response);
  expect(got).toBe(status);
  expect(envelope).toMatchObject({
    success: false,
    errors: [{ errorCode, errorType: status === 400 ? 'Bad Request' : 'Unauthorized', message }],
    error: oauthError,
    error_description: message,
  });
  expect(envelope.requestId).toBeTruthy();
}
