import type { GatewayContext } from '../../context.js';
import type { CompiledPolicy } from '../../policies/policy.js';
import { answering, refuseUnknownFields } from '../input.js';
import type { AdminOperation, AdminResult, WorkerResult } from '../operation.js';

/** One policy with its figures since this process started (summed over the workers by the primary). */
interface PolicyEntry {
  name: string;
  kind: string;
  mode: string;
  evaluations: number;
  refusals: number;
  wouldRefuse: number;
  /** Seconds spent in the policy, all evaluations together: the mean is seconds / evaluations. */
  seconds: number;
}

interface Attached {
  readonly path?: string;
  readonly clientId?: string;
  readonly policies: readonly string[];
}

interface PoliciesAnswer {
  policies: PolicyEntry[];
  chains: { routes: Attached[]; endpoints: Attached[]; apps: Attached[] };
}

/**
 * GET /admin/v1/policies: the policy set in force, each policy with its mode
 * and live figures (the Prometheus series, as numbers), and each chain by
 * where it is attached: every route and endpoint (the defaults included, in
 * the order they run), and the apps that have policies of their own.
 */
export const policiesOperation: AdminOperation = {
  path: '/admin/v1/policies',
  method: 'GET',
  run: (ctx, input) =>
    answering(async () => {
      refuseUnknownFields(input, []);
      return { status: 200, body: policiesOf(ctx) };
    }),
  combine: (answers) => summed(answers),
};

function policiesOf(ctx: GatewayContext): PoliciesAnswer {
  const set = ctx.policies.current;
  const names = (chain: readonly CompiledPolicy[]) => chain.map((policy) => policy.name);
  const { endpoints, routes, apps } = set.chains();
  return {
    policies: [...set.policies.values()].map(({ name, kind, mode }) => ({ name, kind, mode, ...ctx.metrics.policyTotals(name, kind) })),
    chains: {
      routes: [...routes].map(([path, chain]) => ({ path, policies: names(chain) })),
      endpoints: [...endpoints].map(([path, chain]) => ({ path, policies: names(chain) })),
      apps: [...apps].filter(([, chain]) => chain.length > 0).map(([clientId, chain]) => ({ clientId, policies: names(chain) })),
    },
  };
}

/** The first answer's set (every worker loads the same files) with every worker's figures added up. */
function summed(answers: readonly WorkerResult[]): AdminResult {
  const bodies = answers.flatMap(({ result }) => (result?.status === 200 ? [result.body as PoliciesAnswer] : []));
  const [first] = bodies;
  if (!first) return { status: 503, body: { error: 'no worker answered in time; retry in a moment' } };
  const figures = new Map<string, PolicyEntry>();
  for (const body of bodies) {
    for (const entry of body.policies) {
      const key = `${entry.kind}\u0000${entry.name}`;
      const total = figures.get(key);
      if (!total) figures.set(key, { ...entry });
      else {
        total.evaluations += entry.evaluations;
        total.refusals += entry.refusals;
        total.wouldRefuse += entry.wouldRefuse;
        total.seconds += entry.seconds;
      }
    }
  }
  const policies = first.policies.map((entry) => figures.get(`${entry.kind}\u0000${entry.name}`) ?? entry);
  return { status: 200, body: { ...first, policies, workersReporting: bodies.length, workers: answers.length } };
}
