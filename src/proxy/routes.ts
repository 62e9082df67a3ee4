import type { RouteConfig } from '../config/schema.js';

export interface CompiledRoute {
  /** The prefix as configured (what logs and metrics show). */
  readonly path: string;
  readonly upstream: URL;
  readonly timeoutMs: number;
  matches(path: string): boolean;
}

/**
 * Routes compiled once at load: longest prefix first, matched on segment
 * boundaries so `/business/score/v2` never serves `/business/score/v20`.
 */
export class RouteTable {
  private readonly routes: readonly CompiledRoute[];

  constructor(configs: readonly RouteConfig[]) {
    this.routes = configs.map(compileRoute).sort((a, b) => b.path.length - a.path.length);
  }

  match(path: string): CompiledRoute | undefined {
    return this.routes.find((route) => route.matches(path));
  }
}

function compileRoute(config: RouteConfig): CompiledRoute {
  const base = config.path.replace(/\/+$/, '');
  return {
    path: config.path,
    upstream: new URL(config.upstream),
    timeoutMs: config.timeout,
    matches: (path) => path === base || path.startsWith(`${base}/`) || (base === '' && path.startsWith('/')),
  };
}
