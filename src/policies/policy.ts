import type { IncomingMessage } from 'node:http';
import { z } from '../config/zod.js';
import type { Clock } from '../clock.js';
import type { MaybePromise } from '../maybe-promise.js';
import type { ErrorCode } from '../errors/catalogue.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { RequestBody } from '../http/request-body.js';
import type { RateLimiterSettings, WindowCounter } from '../store/types.js';
import { POLICY_NAME } from '../config/fields.js';
import type { PolicyFigures } from './figures.js';

/**
 * What a policy may look at. Everything is computed at most once per request
 * and only when a policy asks (the body is not read, the token not verified,
 * unless some policy needs them).
 */
export interface PolicyRequest {
  readonly req: IncomingMessage;
  /** The request path, percent-decoded once (what routing matched). */
  readonly path: string;
  /** Query parameters, decoded. */
  readonly query: URLSearchParams;
  /** The socket peer, or the client named by X-Forwarded-For across trusted proxies only. */
  readonly clientAddress: string;
  /** Shared with the rest of the request: reading it here does not lose it for the upstream. */
  readonly body: RequestBody;
  /**
   * From the access token on protected routes; as the request claims it on
   * the OAuth endpoints. Answered synchronously when already known (a token
   * verified before): a check awaits only what is a promise.
   */
  clientId(): MaybePromise<string | undefined>;
  /** The end user: the token's `sub`, or the password grant's `username`. */
  user(): MaybePromise<string | undefined>;
}

/** A refusal: the catalogue entry decides status and message; `detail` is for logs only. */
export interface Rejection {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** `undefined` lets the request continue. A streaming check may also throw a StreamRejection to stop a body mid-read. */
export type Verdict = Rejection | undefined;

/**
 * A check's own refusal, thrown instead of returned because it stops a body
 * mid-read. `enforce` counts it as the policy's verdict, unlike a failure of
 * something the check consulted (the Bearer token it asked for, the body
 * limit), which refuses the request as that failure. A check compiled in
 * `mode: report` must not throw it: a cut body cannot go on upstream, so it
 * keeps its finding, lets the read finish and returns it as its verdict.
 */
export class StreamRejection extends GatewayError {}

/**
 * Told why a check let a request through (which rule allowed the address,
 * which window is open), for the dry run (`token-gateway policy test`); the
 * gateway never passes one, so a check only builds the sentence when asked.
 * Why it refused is its verdict's `detail`.
 */
export type Explain = (reason: string) => void;

export type PolicyCheck = (request: PolicyRequest, explain?: Explain) => Verdict | Promise<Verdict>;

/** What compiling a policy may use. Nothing here is per request. */
export interface CompileDeps {
  readonly clock: Clock;
  /**
   * Window counters in the gateway's store. The same settings return the
   * same counter across reloads, so counts survive an edit of the policy files.
   */
  windowCounter(settings: RateLimiterSettings): WindowCounter;
}

/** A policy kind: its YAML schema (which also compiles patterns, ranges, zones) beside its check. */
export interface PolicyKind<S extends z.ZodType = z.ZodType> {
  readonly kind: string;
  readonly schema: S;
  compile(settings: z.output<S>, deps: CompileDeps): PolicyCheck;
}

/** `report` is shadow mode (AWS WAF's Count, ModSecurity's DetectionOnly, Envoy's shadow_rules). */
export const POLICY_MODES = ['enforce', 'report'] as const;
export type PolicyMode = (typeof POLICY_MODES)[number];

/** The keys every policy has, whatever its kind. */
export const policyFields = <K extends string>(kind: K) => ({
  name: z
    .string()
    .regex(POLICY_NAME, 'expected a name of letters, digits, ".", "_" or "-" (at most 64), referenced from gateway.yaml and accounts.yaml')
    .describe('How routes, defaults and apps refer to the policy; unique across all policy files.'),
  kind: z.literal(kind).describe('The kind of policy, which decides the other keys.'),
  description: z.string().optional().describe('Free text for operators; not used by the gateway.'),
  mode: z
    .enum(POLICY_MODES, { error: (issue) => `expected enforce or report, got ${JSON.stringify(issue.input)}` })
    .default('enforce')
    .describe(
      '`enforce` refuses what the policy refuses. `report` (shadow mode) runs it fully, logs and counts what it would refuse, ' +
        'and lets the request through to the next policy.',
    ),
});

/** One compiled policy, immutable; a reload builds new ones. */
export interface CompiledPolicy {
  readonly name: string;
  readonly kind: string;
  readonly mode: PolicyMode;
  readonly check: PolicyCheck;
  /** Its counts, kept by the metrics across reloads. */
  readonly figures: PolicyFigures;
}
