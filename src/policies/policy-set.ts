import { ConfigError, keyPath, type ConfigIssue } from '../config/errors.js';
import { lineOfKey } from '../config/yaml-file.js';
import { uncounted, type FiguresOf } from './figures.js';
import type { PolicyDefinition } from './policy-file.js';
import type { CompiledPolicy, CompileDeps } from './policy.js';

/** Where one list of policy names was written, so an unknown name can be pointed at. */
export interface PolicyReference {
  readonly file: string;
  readonly path: readonly PropertyKey[];
  readonly names: readonly string[];
}

/** Every place gateway.yaml and accounts.yaml attach policies. */
export interface PolicyAttachments {
  readonly defaults: PolicyReference;
  readonly endpoints: ReadonlyMap<string, PolicyReference>;
  readonly routes: ReadonlyMap<string, PolicyReference>;
  readonly apps: ReadonlyMap<string, PolicyReference>;
}

type Chain = readonly CompiledPolicy[];
const NONE: Chain = Object.freeze([]);

/**
 * One complete, compiled, immutable set of policies with every chain resolved
 * in advance: per request the gateway only looks a chain up and runs it. A
 * reload builds a new set and swaps it in whole; a request keeps the set it
 * started with.
 */
export class PolicySet {
  private constructor(
    readonly policies: ReadonlyMap<string, CompiledPolicy>,
    private readonly endpointChains: ReadonlyMap<string, Chain>,
    private readonly routeChains: ReadonlyMap<string, Chain>,
    private readonly appChains: ReadonlyMap<string, Chain>,
  ) {}

  static readonly empty = new PolicySet(new Map(), new Map(), new Map(), new Map());

  /**
   * Compiles every definition and resolves every attachment; unknown names are reported where they were written.
   * `figures` gives each policy its counts (the gateway's metrics); by default nothing counts.
   */
  static async build(definitions: readonly PolicyDefinition[], attachments: PolicyAttachments, deps: CompileDeps, figures: FiguresOf = uncounted): Promise<PolicySet> {
    const policies = new Map<string, CompiledPolicy>();
    for (const { name, kind, mode, settings } of definitions) {
      policies.set(name, Object.freeze({ name, kind: kind.kind, mode, check: kind.compile(settings, deps), figures: figures(name, kind.kind) }));
    }
    const issues: ConfigIssue[] = [];
    const resolve = async (reference: PolicyReference, withDefaults: boolean): Promise<Chain> => {
      const names = withDefaults ? [...attachments.defaults.names, ...reference.names] : reference.names;
      // A policy named twice (in the defaults and again on a route) runs once, where it first appears.
      const chain = [...new Set(names)].flatMap((name) => {
        const policy = policies.get(name);
        return policy ? [policy] : [];
      });
      issues.push(...(await unknownNames(reference, policies)));
      return Object.freeze(chain);
    };
    const chains = async (references: ReadonlyMap<string, PolicyReference>, withDefaults: boolean) => {
      const resolved = new Map<string, Chain>();
      for (const [key, reference] of references) resolved.set(key, await resolve(reference, withDefaults));
      return resolved;
    };
    issues.push(...(await unknownNames(attachments.defaults, policies)));
    const endpointChains = await chains(attachments.endpoints, true);
    const routeChains = await chains(attachments.routes, true);
    const appChains = await chains(attachments.apps, false);
    if (issues.length > 0) throw new ConfigError(issues);
    return new PolicySet(policies, endpointChains, routeChains, appChains);
  }

  /** The defaults, then the endpoint's own. */
  forEndpoint(path: string): Chain {
    return this.endpointChains.get(path) ?? NONE;
  }

  /** The defaults, then the route's own. */
  forRoute(path: string): Chain {
    return this.routeChains.get(path) ?? NONE;
  }

  /** The application's own, run once the client is known. */
  forApp(clientId: string): Chain {
    return this.appChains.get(clientId) ?? NONE;
  }

  /** Every resolved chain by where it is attached, for the operator's views (the admin API, the dry run). */
  chains(): { readonly endpoints: ReadonlyMap<string, Chain>; readonly routes: ReadonlyMap<string, Chain>; readonly apps: ReadonlyMap<string, Chain> } {
    return { endpoints: this.endpointChains, routes: this.routeChains, apps: this.appChains };
  }
}

async function unknownNames(reference: PolicyReference, policies: ReadonlyMap<string, CompiledPolicy>): Promise<ConfigIssue[]> {
  const issues: ConfigIssue[] = [];
  for (const [index, name] of reference.names.entries()) {
    if (policies.has(name)) continue;
    const path = [...reference.path, index];
    const defined = policies.size > 0 ? `defined: ${[...policies.keys()].join(', ')}` : 'no policies are defined';
    issues.push({ file: reference.file, line: await lineOfKey(reference.file, path), key: keyPath(path), message: `unknown policy "${name}" (${defined})` });
  }
  return issues;
}
