import { describe, expect, it } from 'vitest';
import { GatewayError, isGatewayError } from '../../src/errors/gateway-error.js';
import { enforce as enforceNow } from '../../src/policies/enforce.js';
import type { PolicyFigures } from '../../src/policies/figures.js';
import { StreamRejection, type CompiledPolicy, type PolicyCheck, type PolicyMode, type PolicyRequest, type Rejection, type Verdict } from '../../src/policies/policy.js';
import { policyRequest } from '../helpers/policy-request.js';

/** The chain's outcome as one promise, whether it answered synchronously (undefined, or a throw) or not. */
const enforce = async (...args: Parameters<typeof enforceNow>): Promise<void> => enforceNow(...args);

/** Figures that remember what they were told. */
class Tally implements PolicyFigures {
  evaluations = 0;
  refusals = 0;
  wouldRefusals = 0;
  seconds: number[] = [];
  evaluated(seconds: number): void {
    this.evaluations++;
    this.seconds.push(seconds);
  }
  refused(): void {
    this.refusals++;
  }
  wouldRefuse(): void {
    this.wouldRefusals++;
  }
}

const REGEX_THREAT: Rejection = { code: 'REGEX_THREAT', detail: 'pattern sql-injection matched the path' };

function policy(name: string, check: PolicyCheck, mode: PolicyMode = 'enforce'): CompiledPolicy & { figures: Tally } {
  return { name, kind: 'regex-protection', mode, check, figures: new Tally() };
}

const passes: PolicyCheck = () => undefined;
const refuses: PolicyCheck = () => REGEX_THREAT;

async function run(chain: readonly CompiledPolicy[]) {
  const told: string[] = [];
  const outcome = await enforce(chain, policyRequest(), (each, rejection) => told.push(`${each.name}: ${rejection.detail}`)).then(
    () => undefined,
    (error: unknown) => error,
  );
  return { error: outcome as GatewayError | undefined, told };
}

describe('enforce: a chain in order, report-only policies included', () => {
  it('stops at the first refusal of an enforcing policy, naming it for the log only', async () => {
    const [first, second, third] = [policy('first', passes), policy('second', refuses), policy('third', passes)];
    const { error } = await run([first, second, third]);
    expect(error).toBeInstanceOf(GatewayError);
    expect({ code: error?.code, policy: error?.policy, kind: error?.policyKind, detail: error?.detail }).toEqual({
      code: 'REGEX_THREAT',
      policy: 'second',
      kind: 'regex-protection',
      detail: 'policy second: pattern sql-injection matched the path',
    });
    expect([first, second, third].map((each) => [each.figures.evaluations, each.figures.refusals])).toEqual([
      [1, 0],
      [1, 1],
      [0, 0],
    ]);
  });

  it('lets a report-only refusal through, tells it, counts it as would-refuse, and runs the next policy', async () => {
    const [shadow, after] = [policy('shadow', refuses, 'report'), policy('after', passes)];
    const { error, told } = await run([shadow, after]);
    expect(error).toBeUndefined();
    expect(told).toEqual(['shadow: pattern sql-injection matched the path']);
    expect(shadow.figures).toMatchObject({ evaluations: 1, refusals: 0, wouldRefusals: 1 });
    expect(after.figures).toMatchObject({ evaluations: 1, refusals: 0, wouldRefusals: 0 });
  });

  it('still refuses with an enforcing policy after a report-only one that would have refused', async () => {
    const [shadow, enforcing] = [policy('shadow', refuses, 'report'), policy('enforcing', refuses)];
    const { error, told } = await run([shadow, enforcing]);
    expect(error?.policy).toBe('enforcing');
    expect(told).toEqual(['shadow: pattern sql-injection matched the path']);
    expect(enforcing.figures.refusals).toBe(1);
  });

  it('counts a refusal thrown mid-stream as the policy verdict', async () => {
    const streaming = policy('json', () => {
      throw new StreamRejection('JSON_THREAT', { detail: 'depth 11 > 10' });
    });
    const { error } = await run([streaming]);
    expect({ code: error?.code, policy: error?.policy, detail: error?.detail }).toEqual({ code: 'JSON_THREAT', policy: 'json', detail: 'policy json: depth 11 > 10' });
    expect(streaming.figures).toMatchObject({ evaluations: 1, refusals: 1 });
  });

  it('refuses as what failed, not as the policy, when something the check consulted fails', async () => {
    const consulting = policy('per-client', () => {
      throw new GatewayError('ACCESS_TOKEN_INVALID', { detail: 'ERR_JWS_INVALID' });
    });
    const { error } = await run([consulting]);
    expect({ code: error?.code, policy: error?.policy, detail: error?.detail }).toEqual({
      code: 'ACCESS_TOKEN_INVALID',
      policy: undefined,
      detail: 'policy per-client: ERR_JWS_INVALID',
    });
    expect(consulting.figures).toMatchObject({ evaluations: 1, refusals: 0, wouldRefusals: 0 });
  });

  it('times every evaluation, an awaited one with what it waited for', async () => {
    const waits = policy('waits', () => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 20)));
    const quick = policy('quick', passes);
    await run([quick, waits]);
    expect(quick.figures.seconds[0]).toBeGreaterThanOrEqual(0);
    expect(quick.figures.seconds[0]).toBeLessThan(0.015);
    expect(waits.figures.seconds[0]).toBeGreaterThanOrEqual(0.015);
  });
});

/*
 * The chain rules as they were before report mode, each policy enforcing
 * (these came with the tests' move to the module's path).
 */
const noReport = () => undefined;
const enforcing = (name: string, check: () => Verdict | Promise<Verdict>, ran?: string[]): CompiledPolicy => ({
  name,
  kind: 'test-kind',
  mode: 'enforce',
  figures: new Tally(),
  check: () => {
    ran?.push(name);
    return check();
  },
});
const refusal = async (chain: CompiledPolicy[]) => {
  const error = await enforce(chain, {} as PolicyRequest, noReport).then(() => undefined, (caught: unknown) => caught);
  if (!isGatewayError(error)) throw new Error(`not refused with a GatewayError: ${String(error)}`);
  return { code: error.code, detail: error.detail, headers: error.headers, policy: error.policy, policyKind: error.policyKind };
};

describe('enforcing a chain of policies', () => {
  it('runs every policy in order when all let the request through', async () => {
    const ran: string[] = [];
    await enforce([enforcing('a', () => undefined, ran), enforcing('b', async () => undefined, ran)], {} as PolicyRequest, noReport);
    expect(ran).toEqual(['a', 'b']);
  });

  it('stops at the first refusal, naming the policy for the log and the metrics (never for the client)', async () => {
    const ran: string[] = [];
    const chain = [
      enforcing('first', () => undefined, ran),
      enforcing('spike', () => ({ code: 'SPIKE_ARREST', detail: '2 in 100ms', headers: { 'Retry-After': '1' } }), ran),
      enforcing('never', () => undefined, ran),
    ];
    expect(await refusal(chain)).toEqual({ code: 'SPIKE_ARREST', detail: 'policy spike: 2 in 100ms', headers: { 'Retry-After': '1' }, policy: 'spike', policyKind: 'test-kind' });
    expect(ran).toEqual(['first', 'spike']);
  });

  it('counts a body stopped mid-read (a thrown StreamRejection) as the policy\'s own refusal', async () => {
    const chain = [
      enforcing('json-guard', () => {
        throw new StreamRejection('JSON_THREAT', { detail: 'depth 33' });
      }),
    ];
    expect(await refusal(chain)).toMatchObject({ code: 'JSON_THREAT', detail: 'policy json-guard: depth 33', policy: 'json-guard', policyKind: 'test-kind' });
  });

  it('refuses as the failure itself, without naming a policy, when what a check consulted failed (the Bearer token)', async () => {
    const chain = [
      enforcing('per-client', () => {
        throw new GatewayError('ACCESS_TOKEN_INVALID', { detail: 'ERR_JWT_EXPIRED', headers: { 'WWW-Authenticate': 'Bearer' } });
      }),
    ];
    expect(await refusal(chain)).toEqual({
      code: 'ACCESS_TOKEN_INVALID',
      detail: 'policy per-client: ERR_JWT_EXPIRED',
      headers: { 'WWW-Authenticate': 'Bearer' },
      policy: undefined,
      policyKind: undefined,
    });
  });

  it('answers synchronously while every check does, and runs the rest in order after the first check that answers later', async () => {
    const ran: string[] = [];
    expect(enforceNow([enforcing('a', () => undefined, ran), enforcing('b', () => undefined, ran)], {} as PolicyRequest, noReport)).toBeUndefined();
    expect(ran).toEqual(['a', 'b']);
    const later = enforceNow(
      [enforcing('c', () => undefined, ran), enforcing('d', async () => undefined, ran), enforcing('e', () => undefined, ran)],
      {} as PolicyRequest,
      noReport,
    );
    expect(later).toBeInstanceOf(Promise);
    // 'e' waits for 'd' to answer.
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
    await later;
    expect(ran).toEqual(['a', 'b', 'c', 'd', 'e']);
    // A synchronous refusal is thrown at once, and nothing after it runs.
    expect(() => enforceNow([enforcing('f', () => REGEX_THREAT, ran), enforcing('g', () => undefined, ran)], {} as PolicyRequest, noReport)).toThrow(GatewayError);
    expect(ran).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('lets a defect through as it is', async () => {
    const defect = new TypeError('bug in a check');
    await expect(
      enforce(
        [
          enforcing('broken', () => {
            throw defect;
          }),
        ],
        {} as PolicyRequest,
        noReport,
      ),
    ).rejects.toBe(defect);
  });
});
