import { access } from 'node:fs/promises';
import { loadGatewayConfig } from '../config/load.js';
import { adminAccessOf } from '../admin/access.js';
import { hostForUrl } from '../listeners/listen.js';
import { z } from '../config/zod.js';
import { CommandFailed, CommandLineError, runCommand } from './command-errors.js';
import { DEFAULT_CONFIG_FILE, EXIT, type CommandIo } from './io.js';

/** The options every admin command takes, for parseArgs. */
export const ADMIN_CONNECTION_OPTIONS = { config: { type: 'string' }, admin: { type: 'string' } } as const;
export const ADMIN_CONNECTION_USAGE = `  --config FILE   the gateway's config (default ./${DEFAULT_CONFIG_FILE}): the admin listener's address and admin.token_file
  --admin URL     the admin listener, e.g. http://10.0.0.5:9901, instead of the one the config names`;

/** Where to send admin calls and the token they carry. */
export interface AdminConnection {
  readonly url: string;
  readonly token: string | undefined;
  /** Where the token came from, to name it when the gateway refuses it. */
  readonly tokenSource: string | undefined;
}

/**
 * From `--admin` and `--config`: the URL is `--admin`, or the config's
 * admin.host and admin.port (a wildcard host is reached on loopback); the
 * token is the one in admin.token_file. With `--admin` and no `--config`, a
 * missing ./gateway.yaml just means no token.
 */
export async function adminConnection(options: { config?: string | undefined; admin?: string | undefined }): Promise<AdminConnection> {
  const adminUrl = options.admin === undefined ? undefined : parseAdminUrl(options.admin);
  const configFile = options.config ?? DEFAULT_CONFIG_FILE;
  if (adminUrl && options.config === undefined && !(await exists(configFile))) return { url: adminUrl, token: undefined, tokenSource: undefined };
  const config = await loadGatewayConfig(configFile);
  const { token } = await adminAccessOf(config);
  const url = adminUrl ?? listenerUrl(config.admin.host, config.admin.port, configFile);
  return { url, token, tokenSource: config.admin.token_file };
}

function parseAdminUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CommandLineError(`--admin must be a URL like http://127.0.0.1:9901, got "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CommandLineError(`--admin must be an http:// or https:// URL, got "${text}"`);
  return url.origin;
}

function listenerUrl(host: string, port: number, configFile: string): string {
  if (port === 0) throw new CommandFailed(`${configFile}: admin.port is 0 (a port chosen at start): give the admin listener's URL with --admin`);
  // A wildcard listener is reachable on loopback from the machine it runs on.
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${hostForUrl(reachable)}:${port}`;
}

/** The --user and --client options of the commands that name accounts (grants, revoke). */
export const ACCOUNT_OPTIONS = { user: { type: 'string' }, client: { type: 'string' } } as const;

/**
 * --user and --client as the admin API's input (`username`, `client_id`).
 * The API refuses a blank one (400), and that is the command line's mistake
 * (exit 2), found before any call.
 */
export function accountInput(values: { readonly user?: string; readonly client?: string }): { username?: string; client_id?: string } {
  for (const [option, value] of [['--user', values.user], ['--client', values.client]] as const) {
    if (value !== undefined && value.trim() === '') throw new CommandLineError(`${option} must not be blank, got "${value}"`);
  }
  return { ...(values.user === undefined ? {} : { username: values.user }), ...(values.client === undefined ? {} : { client_id: values.client }) };
}

const exists = (file: string): Promise<boolean> => access(file).then(() => true, () => false);

/** How long a command waits for an answer: revoking every grant of a large client takes a while. */
const ANSWER_TIMEOUT_MS = 300_000;

/** What a command reads of an operation's answer; fields it does not name are kept (`grants --json` prints them). */
export type AnswerShape<T> = z.ZodType<T>;

/**
 * One admin API call; the 2xx answer, checked against `shape`, or a
 * CommandFailed that says what went wrong in words an operator can act on.
 * Something else answering at the URL (an upstream, another service's port)
 * is said to be that, never taken for a result.
 */
export async function callAdmin<T>(connection: AdminConnection, method: 'GET' | 'POST', path: string, input: Record<string, unknown>, shape: AnswerShape<T>): Promise<T> {
  const headers: Record<string, string> = connection.token === undefined ? {} : { authorization: `Bearer ${connection.token}` };
  let url = `${connection.url}${path}`;
  let body: string | undefined;
  if (method === 'GET') {
    const query = new URLSearchParams(input as Record<string, string>).toString();
    if (query) url += `?${query}`;
  } else {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(input);
  }
  let response: Response;
  try {
    response = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
  } catch (error) {
    throw new CommandFailed(unreachable(connection.url, error));
  }
  const answer: unknown = await response.json().catch(() => undefined);
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) throw notAdminApi(connection.url, `${response.status} without a JSON object`);
  if (!response.ok) {
    const refused = REFUSAL_SHAPE.safeParse(answer);
    if (!refused.success) throw notAdminApi(connection.url, `${response.status} without "error"`);
    throw new CommandFailed(refusal(connection, response.status, refused.data.error));
  }
  const parsed = shape.safeParse(answer);
  if (!parsed.success) throw notAdminApi(connection.url, `${response.status} with ${firstIssue(parsed.error)}`);
  return parsed.data;
}

/** The admin API's refusal envelope (src/admin/server.ts sendError). */
const REFUSAL_SHAPE = z.object({ error: z.string() });

function notAdminApi(url: string, what: string): CommandFailed {
  return new CommandFailed(`${url}: not an answer of the token-gateway admin API (${what})`);
}

/** One issue is enough to tell a wrong listener: `"grants": required: expected a list`. */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const where = issue.path.length === 0 ? 'the answer' : `"${issue.path.join('.')}"`;
  return `${where}: ${issue.message}`;
}

function unreachable(url: string, error: unknown): string {
  if ((error as Error).name === 'TimeoutError') {
    return `no answer from ${url} within ${ANSWER_TIMEOUT_MS / 1000} s; the operation may still be running (see the gateway's log)`;
  }
  const code = ((error as { cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code) || 'no connection';
  if (code === 'ECONNREFUSED') return `no gateway answers at ${url}; is it running? (token-gateway serve)`;
  return `no gateway answers at ${url} (${code}); is it running, and is the address right?`;
}

function refusal(connection: AdminConnection, status: number, message: string): string {
  if (status === 401) {
    const hint =
      connection.token === undefined
        ? 'no admin token was sent: give --config the gateway.yaml whose admin.token_file holds it'
        : `the token in ${connection.tokenSource} is not the one this gateway was started with`;
    return `the admin API refused the call (401 ${message}): ${hint}`;
  }
  if (status === 403) return `the admin API refused the call (403): ${message}`;
  if (status >= 500) return `the gateway could not do it (${status}): ${message}`;
  return message;
}

/** Runs one admin command: `--help`, then the call, every expected failure told in one line (command-errors.ts). */
export async function runAdminCommand(name: string, usage: string, args: readonly string[], io: CommandIo, command: () => Promise<number>): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(`${usage}\n`);
    return EXIT.ok;
  }
  return runCommand(name, usage, io, command);
}
