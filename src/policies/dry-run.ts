import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { catalogue } from '../errors/catalogue.js';
import { GatewayError } from '../errors/gateway-error.js';
import { RequestBody } from '../http/request-body.js';
import { StreamRejection, type CompiledPolicy, type PolicyMode, type PolicyRequest, type Verdict } from './policy.js';

/** A request as `token-gateway policy test` is given it: plain data, no socket. */
export interface DryRunRequest {
  readonly method: string;
  /** As sent: the path, percent-encoded, with its query. */
  readonly target: string;
  /** Names as given; values in order (a header sent twice is two values). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer;
  /** The address the policies see: the socket peer, or the client X-Forwarded-For names across trusted proxies. */
  readonly clientAddress: string;
  /** Taken as verified: the client of the Bearer token on a route, of the credentials on an endpoint. */
  readonly clientId: string | undefined;
  readonly user: string | undefined;
}

/** One policy's verdict in a dry run. */
export interface DryRunVerdict {
  readonly policy: string;
  readonly kind: string;
  readonly mode: PolicyMode;
  /**
   * `refuse`: an enforcing policy refused; `would-refuse`: a report-only one would have; `failed`: something the
   * check consulted refused the request (a body over limits.body_size), as the gateway would, without `policy`.
   */
  readonly verdict: 'pass' | 'refuse' | 'would-refuse' | 'failed';
  /** False for a policy after the one whose refusal ends the request at the gateway: its verdict is shown all the same. */
  readonly reached: boolean;
  /** Why: the verdict's detail (which pattern where, which limit, which rule, which window) and the check's own explanation. */
  readonly reason: string;
  readonly status?: number;
  readonly errorCode?: string;
}

/**
 * Runs each policy of a chain against the request, in order, with the
 * gateway's own checks and the gateway's own rules for their outcome: a
 * report-only refusal lets the request go on, the first enforcing refusal (or
 * failure) ends it. Unlike the gateway it goes on past that point, marking the
 * rest as not reached, so an operator sees every verdict of an edit at once.
 * Each policy gets the request afresh (`requestFor`), as if the policies
 * before it had passed.
 */
export async function dryRun(chain: readonly CompiledPolicy[], requestFor: () => PolicyRequest): Promise<DryRunVerdict[]> {
  const verdicts: DryRunVerdict[] = [];
  let reached = true;
  for (const policy of chain) {
    const verdict = await judge(policy, requestFor());
    verdicts.push({ ...verdict, reached });
    if (verdict.verdict === 'refuse' || verdict.verdict === 'failed') reached = false;
  }
  return verdicts;
}

/** Whether the gateway would let the request through: no enforcing refusal and no failure among the policies it reaches. */
export const passes = (verdicts: readonly DryRunVerdict[]): boolean =>
  verdicts.every((verdict) => !verdict.reached || verdict.verdict === 'pass' || verdict.verdict === 'would-refuse');

async function judge(policy: CompiledPolicy, request: PolicyRequest): Promise<Omit<DryRunVerdict, 'reached'>> {
  const explanations: string[] = [];
  const which = { policy: policy.name, kind: policy.kind, mode: policy.mode };
  let verdict: Verdict;
  try {
    verdict = await policy.check(request, (reason) => explanations.push(reason));
  } catch (error) {
    if (error instanceof StreamRejection) verdict = { code: error.code, detail: error.detail ?? '' };
    else if (error instanceof GatewayError) {
      return { ...which, verdict: 'failed', reason: `${error.detail ?? error.code} (refused as ${error.code}, not by the policy)`, status: error.status, errorCode: error.code };
    } else throw error;
  }
  if (verdict === undefined) return { ...which, verdict: 'pass', reason: explanations.join('; ') || 'passed' };
  return {
    ...which,
    verdict: policy.mode === 'report' ? 'would-refuse' : 'refuse',
    reason: [verdict.detail, ...explanations].join('; '),
    status: catalogue[verdict.code].status,
    errorCode: verdict.code,
  };
}

/**
 * The policies' view of a dry-run request, built as the gateway builds it
 * from a live one: `path` as routing matched it, the query parsed, headers by
 * lower-case name, the body read through the same RequestBody, whose limit is
 * the one of what serves the request.
 */
export function syntheticRequest(request: DryRunRequest, { path, bodyLimit }: { readonly path: string; readonly bodyLimit: number }): PolicyRequest {
  const headers: Record<string, string> = {};
  const headersDistinct: Record<string, string[]> = {};
  for (const [name, value] of request.headers) {
    const key = name.toLowerCase();
    (headersDistinct[key] ??= []).push(value);
    headers[key] = headersDistinct[key].join(key === 'cookie' ? '; ' : ', ');
  }
  if (request.body.length > 0 && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) {
    headers['content-length'] = String(request.body.length);
    headersDistinct['content-length'] = [headers['content-length']];
  }
  const req = Object.assign(Readable.from(request.body.length > 0 ? [request.body] : []), {
    method: request.method,
    url: request.target,
    headers,
    headersDistinct,
  }) as unknown as IncomingMessage;
  const queryAt = request.target.indexOf('?');
  return {
    req,
    path,
    query: new URLSearchParams(queryAt < 0 ? '' : request.target.slice(queryAt + 1)),
    clientAddress: request.clientAddress,
    body: new RequestBody(req, bodyLimit),
    clientId: async () => request.clientId,
    user: async () => request.user,
  };
}
