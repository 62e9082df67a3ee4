import { readFile } from 'node:fs/promises';
import { METHODS } from 'node:http';
import { parseArgs } from 'node:util';
import { accountsSchema } from '../../accounts/schema.js';
import { systemClock, type Clock } from '../../clock.js';
import { ConfigError, formatIssue, StartupError } from '../../config/errors.js';
import { loadGatewayConfig, namedIn } from '../../config/load.js';
import { loadYamlFile } from '../../config/yaml-file.js';
import { parseAddress } from '../../net/address-range.js';
import { dryRun, passes, syntheticRequest, type DryRunRequest, type DryRunVerdict } from '../../policies/dry-run.js';
import { loadPolicySetOffline } from '../../policies/offline.js';
import { CommandLineError } from '../command-errors.js';
import { chainFor, RefusedBeforePolicies, type ServedChain } from '../dry-run-chain.js';
import { DEFAULT_CONFIG_FILE, EXIT, type CommandIo } from '../io.js';
import { readRequestFile, RequestFileError, type RequestFromFile } from '../request-file.js';
import { formatTable } from '../table.js';

export const POLICY_USAGE = `usage: token-gateway policy test [--config FILE] [--route PATH | --endpoint PATH]
         [--method M] [--path P] [--header 'Name: value']... [--body TEXT | --body-file F]
         [--client-address IP] [--client-id ID] [--user NAME] [--at ISO-TIME] [--request-file F] [--json]
  Runs one request through the policies the gateway would run for it, offline (no running gateway, no store),
  and prints each policy's verdict and why, in chain order: PASS, REFUSE, or WOULD-REFUSE for a report-only one.
  --config FILE          gateway.yaml (default ./${DEFAULT_CONFIG_FILE}), its accounts file and its policies folder
  --route PATH           the chain of this configured route, whatever the path
  --endpoint PATH        the chain of this endpoint (/oauth2/v1/token, /oauth2/v1/revokeToken, ...)
  --method M             default GET, or POST with a body
  --path P               the request path with its query, e.g. '/business/score/v2/x?q=1' (default: the route's or endpoint's)
  --header 'Name: v'     a request header; repeat for more
  --body TEXT, --body-file F   the request body
  --client-address IP    the address the policies see (default 127.0.0.1): after trusted_proxies, as ip-range sees it
  --client-id ID         the client, taken as verified (its Bearer token or credentials); adds the app's own policies
  --user NAME            the end user (a token's sub, the password grant's username)
  --at ISO-TIME          the time the time-of-day policies read, e.g. 2026-11-23T09:00:00-06:00 (default: now)
  --request-file F       a HAR entry (JSON) or a curl command line; the flags above override its method and path,
                         add headers and replace its body
  --json                 the verdicts as JSON, for scripts and CI
  Spike arrests count this one request against empty counters: the gateway's live counts are not known here.
exit: 0 the request would pass (report-only policies may have reported), 1 it would be refused,
      2 the command line, the request file or the configuration is wrong`;

const OPTIONS = {
  config: { type: 'string' },
  route: { type: 'string' },
  endpoint: { type: 'string' },
  method: { type: 'string' },
  path: { type: 'string' },
  header: { type: 'string', multiple: true },
  body: { type: 'string' },
  'body-file': { type: 'string' },
  'client-address': { type: 'string' },
  'client-id': { type: 'string' },
  user: { type: 'string' },
  at: { type: 'string' },
  'request-file': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** `token-gateway policy test`: exit 0 pass, 1 refused, 2 anything wrong with what it was given. */
export async function policyCommand(args: readonly string[], io: CommandIo): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
    if (values.help) {
      io.stdout.write(`${POLICY_USAGE}\n`);
      return EXIT.ok;
    }
    if (positionals.length !== 1 || positionals[0] !== 'test') {
      throw new CommandLineError(positionals.length === 0 ? 'say what to do: policy test' : `unknown policy command "${positionals.join(' ')}"`);
    }
    return await policyTest(values, io);
  } catch (error) {
    if (error instanceof CommandLineError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`token-gateway policy: ${(error as Error).message}\n\n${POLICY_USAGE}\n`);
      return EXIT.usage;
    }
    if (error instanceof ConfigError) {
      for (const issue of error.issues) io.stderr.write(`${formatIssue(issue)}\n`);
      io.stderr.write('token-gateway policy: the configuration above must be corrected before a request can be tested\n');
      return EXIT.usage;
    }
    if (error instanceof RequestFileError || error instanceof StartupError) {
      io.stderr.write(`token-gateway policy: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}

async function policyTest(values: Values, io: CommandIo): Promise<number> {
  const fromFile = values['request-file'] === undefined ? undefined : await readRequestFile(values['request-file']);
  const request = await requestOf(values, fromFile);
  const at = timeOf(values.at);
  const config = await loadGatewayConfig(values.config ?? DEFAULT_CONFIG_FILE);
  const accounts = await loadYamlFile(config.accounts, accountsSchema, namedIn(config, 'accounts'));
  const clock: Clock = { now: () => at, setTimer: systemClock.setTimer };
  const set = await loadPolicySetOffline(config, accounts.apps, clock);
  const rawPath = request.target.split('?')[0] as string;
  let chain: ServedChain;
  try {
    chain = chainFor(config, set, rawPath, { route: values.route, endpoint: values.endpoint }, request.clientId);
  } catch (error) {
    if (!(error instanceof RefusedBeforePolicies)) throw error;
    io.stdout.write(values.json ? `${JSON.stringify({ request: describeRequest(request, at), result: 'refuse', reason: error.message }, null, 2)}\n` : `would be refused: ${error.message}\n`);
    return EXIT.invalid;
  }
  const verdicts = await dryRun([...chain.before, ...chain.app], () => syntheticRequest(request, chain));
  const passed = passes(verdicts);
  const unknownApp = request.clientId !== undefined && !accounts.apps.some((app) => app.client_id === request.clientId);
  io.stdout.write(values.json ? asJson(request, at, chain, verdicts, passed) : asText(request, at, chain, verdicts, passed, unknownApp));
  return passed ? EXIT.ok : EXIT.invalid;
}

/** The request file, with the flags laid over it: method and path replaced, headers added, body replaced. */
async function requestOf(values: Values, file: RequestFromFile | undefined): Promise<DryRunRequest> {
  if (values.route !== undefined && values.endpoint !== undefined) throw new CommandLineError('give --route or --endpoint, not both');
  if (values.body !== undefined && values['body-file'] !== undefined) throw new CommandLineError('give --body or --body-file, not both');
  const body = values.body !== undefined ? Buffer.from(values.body) : values['body-file'] !== undefined ? await readBodyFile(values['body-file']) : file?.body;
  const target = pathOf(values.path ?? file?.target ?? values.route ?? values.endpoint);
  const method = (values.method ?? file?.method ?? (body && body.length > 0 ? 'POST' : 'GET')).toUpperCase();
  if (!METHODS.includes(method)) {
    const given = values.method === undefined ? "the request file's method" : '--method';
    throw new CommandLineError(`${given} must be one the gateway can receive, like GET or POST (node's HTTP parser answers 400 to any other), got "${method}"`);
  }
  const clientAddress = values['client-address'] ?? '127.0.0.1';
  if (!parseAddress(clientAddress)) throw new CommandLineError(`--client-address must be an IPv4 or IPv6 address, got "${clientAddress}"`);
  const headers = [...(file?.headers ?? []), ...(values.header ?? []).map(headerOf)];
  return { method, target, headers, body: body ?? Buffer.alloc(0), clientAddress, clientId: values['client-id'], user: values.user };
}

function pathOf(given: string | undefined): string {
  if (given === undefined) throw new CommandLineError('say which request: --path, --route, --endpoint or --request-file');
  if (given.startsWith('/')) return given;
  if (/^https?:\/\//i.test(given)) {
    const url = new URL(given);
    return `${url.pathname}${url.search}`;
  }
  throw new CommandLineError(`--path must start with "/", got "${given}"`);
}

function headerOf(text: string): readonly [string, string] {
  const colon = text.indexOf(':');
  const name = colon < 0 ? '' : text.slice(0, colon).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new CommandLineError(`--header must be 'Name: value', got "${text}"`);
  return [name, text.slice(colon + 1).trim()];
}

async function readBodyFile(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new RequestFileError(`cannot read the body file ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

function timeOf(text: string | undefined): number {
  if (text === undefined) return Date.now();
  const at = /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(at)) throw new CommandLineError(`--at must be an ISO 8601 time like 2026-11-23T09:00:00-06:00, got "${text}"`);
  return at;
}

const describeRequest = (request: DryRunRequest, at: number) => ({
  method: request.method,
  target: request.target,
  clientAddress: request.clientAddress,
  clientId: request.clientId ?? null,
  user: request.user ?? null,
  at: new Date(at).toISOString(),
});

/** Said of every spike arrest: its verdict is the one of a first request. */
const EMPTY_COUNTER = 'one request against an empty counter: the gateway\'s live counts are not known here';

function reasonOf(verdict: DryRunVerdict): string {
  return verdict.kind === 'spike-arrest' ? `${verdict.reason} (${EMPTY_COUNTER})` : verdict.reason;
}

function asText(request: DryRunRequest, at: number, chain: ServedChain, verdicts: readonly DryRunVerdict[], passed: boolean, unknownApp: boolean): string {
  const who = [`from ${request.clientAddress}`, request.clientId && `client ${request.clientId}`, request.user && `user ${request.user}`].filter(Boolean).join(', ');
  const lines = [`request: ${request.method} ${request.target} ${who}, at ${new Date(at).toISOString()}`];
  const after = chain.app.length > 0 ? `, then ${chain.app.length} of app ${request.clientId} once it is authenticated` : '';
  lines.push(`served by ${chain.served}: ${chain.before.length} ${chain.before.length === 1 ? 'policy' : 'policies'} before authentication${after}`);
  if (unknownApp) lines.push(`note: ${request.clientId} is not an app of the accounts file, so no app policies (the gateway would not authenticate it)`);
  if (verdicts.length === 0) return `${lines.join('\n')}\n\nno policy runs on this request: it would pass\n`;
  const rows = verdicts.map((verdict, index) => {
    const label = verdict.verdict.toUpperCase();
    return [String(index + 1), verdict.policy, verdict.kind, verdict.mode, verdict.reached ? label : `(${label})`, reasonOf(verdict)];
  });
  lines.push('', formatTable(['#', 'POLICY', 'KIND', 'MODE', 'VERDICT', 'WHY'], rows).trimEnd());
  const stop = verdicts.find((verdict) => verdict.verdict === 'refuse' || verdict.verdict === 'failed');
  if (verdicts.some((verdict) => !verdict.reached)) lines.push(`(...): not reached, the gateway stops at ${stop?.policy}; shown as the policy would decide on its own`);
  const reported = verdicts.filter((verdict) => verdict.reached && verdict.verdict === 'would-refuse').length;
  const reports = reported === 0 ? '' : ` (${reported} report-only ${reported === 1 ? 'policy' : 'policies'} would refuse it: mode report lets it through)`;
  const refusal = stop?.verdict === 'failed' ? `while ${stop.policy} ran (not its verdict)` : `by ${stop?.policy}`;
  lines.push('', passed ? `would pass${reports}` : `would be refused: ${stop?.status} ${stop?.errorCode} ${refusal}${reports}`);
  return `${lines.join('\n')}\n`;
}

function asJson(request: DryRunRequest, at: number, chain: ServedChain, verdicts: readonly DryRunVerdict[], passed: boolean): string {
  const stop = verdicts.find((verdict) => verdict.reached && (verdict.verdict === 'refuse' || verdict.verdict === 'failed'));
  const before = chain.before.length;
  return `${JSON.stringify(
    {
      request: describeRequest(request, at),
      served: chain.served,
      policies: verdicts.map((verdict, index) => ({
        position: index + 1,
        phase: index < before ? 'before-authentication' : 'app',
        ...verdict,
        reason: reasonOf(verdict),
      })),
      result: passed ? 'pass' : 'refuse',
      ...(stop ? { refusedBy: { policy: stop.policy, status: stop.status, errorCode: stop.errorCode } } : {}),
    },
    null,
    2,
  )}\n`;
}
