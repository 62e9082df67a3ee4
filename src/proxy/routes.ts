import type { RouteConfig } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';

export interface CompiledRoute {
  /** The prefix as configured (what logs and metrics show). */
  readonly path: string;
  readonly upstream: URL;
  readonly timeoutMs: number;
  matches(path: string): boolean;
}

interface TableEntry {
  readonly route: CompiledRoute;
  /** Longer routes under this one, compared without case: a spelling of theirs in other letters must not land here. */
  readonly nested: readonly ((lowerCasePath: string) => boolean)[];
}

/**
 * Routes compiled once at load: longest prefix first, matched on segment
 * boundaries so `/business/score/v2` never serves `/business/score/v20`.
 */
export class RouteTable {
  private readonly entries: readonly TableEntry[];

  constructor(configs: readonly RouteConfig[]) {
    const routes = configs.map(compileRoute).sort((a, b) => b.path.length - a.path.length);
    this.entries = routes.map((route) => ({ route, nested: nestedUnder(route, routes) }));
  }

  /**
   * The longest route for the path. A path that is a more specific route in
   * other letters (`/v2/ADMIN/x` beside a `/v2/admin/` route) is refused
   * instead of served by the shorter route: an upstream that resolves paths
   * without regard to case (IIS, some Spring set-ups) would serve it as the
   * specific route, past that route's policies.
   */
  /** Every route, longest prefix first. */
  get routes(): readonly CompiledRoute[] {
    return this.entries.map((entry) => entry.route);
  }

  match(path: string): CompiledRoute | undefined {
    const entry = this.entries.find(({ route }) => route.matches(path));
    if (!entry || entry.nested.length === 0) return entry?.route;
    const lowerCase = path.toLowerCase();
    if (entry.nested.some((matches) => matches(lowerCase))) {
      throw new GatewayError('MALFORMED_REQUEST', { detail: 'path differs from a more specific route only in letter case' });
    }
    return entry.route;
  }
}

function compileRoute(config: RouteConfig): CompiledRoute {
  const base = baseOf(config.path);
  return {
    path: config.path,
    upstream: new URL(config.upstream),
    timeoutMs: config.timeout,
    matches: prefixMatcher(base),
  };
}

const baseOf = (path: string): string => path.replace(/\/+$/, '');

const prefixMatcher =
  (base: string) =>
  (path: string): boolean =>
    path === base || path.startsWith(`${base}/`) || (base === '' && path.startsWith('/'));

function nestedUnder(route: CompiledRoute, routes: readonly CompiledRoute[]): Array<(lowerCasePath: string) => boolean> {
  const outer = prefixMatcher(baseOf(route.path).toLowerCase());
  return routes
    .filter((other) => other !== route && baseOf(other.path).length > baseOf(route.path).length && outer(baseOf(other.path).toLowerCase()))
    .map((other) => prefixMatcher(baseOf(other.path).toLowerCase()));
}
