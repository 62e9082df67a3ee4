import { isDeepStrictEqual } from 'node:util';
import type { AccountRegistry } from '../accounts/registry.js';
import type { GatewayConfig } from '../config/schema.js';
import type { GatewayContext } from '../context.js';
import { LoginThrottle } from '../accounts/login-throttle.js';
import type { Forwarder, ForwarderOptions } from '../proxy/forward.js';
import { RouteTable } from '../proxy/routes.js';
import { createRequestHandler, type GatewayRequestListener } from '../pipeline/request-handler.js';

/** The parts of a context that live as long as the process; a reload replaces the rest. */
export type SharedParts = Omit<GatewayContext, 'config' | 'accounts' | 'loginThrottle'>;

/** One config and one set of accounts, with everything built from them. */
interface Generation {
  readonly context: GatewayContext;
  readonly handle: GatewayRequestListener;
  readonly forwarder: Forwarder;
}

/**
 * The config and accounts in force, as one immutable GatewayContext at a
 * time. A reload builds a whole new generation (context, route table, request
 * handler; the forwarder and the brute-force counters only when their
 * settings changed) and swaps it in at once: a request is served from start
 * to end by the generation in force when it arrived, the next one sees the
 * new one. So no module keeps a stale copy: whatever a module builds from
 * the config at construction is built again, and a module that lives longer
 * than a request reads `current` each time rather than keeping a context.
 *
 * The policy set is swapped in the same tick (PolicyRuntime.reconfigure), and
 * a request takes it in the same tick as its generation (nothing awaits
 * between the listener and `openPolicies`), so a new route never runs
 * without its policies.
 */
export class Generations {
  private generation: Generation;
  /** Forwarders not closed yet: the current one, and replaced ones still carrying requests. */
  private readonly forwarders = new Set<Forwarder>();

  constructor(
    private readonly shared: SharedParts,
    config: GatewayConfig,
    accounts: AccountRegistry,
    private readonly createForwarder: (options: ForwarderOptions) => Forwarder,
    /** Resolves once the requests in flight at the call have ended (Drain.inFlightDone). */
    private readonly inFlightDone: () => Promise<void>,
  ) {
    this.generation = this.build(config, accounts, undefined);
  }

  /** The context in force: for a new request, a probe, an admin operation. */
  get current(): GatewayContext {
    return this.generation.context;
  }

  /** The request listener of every client listener. */
  readonly listener: GatewayRequestListener = (req, res, responseClosed) => this.generation.handle(req, res, responseClosed);

  /** Swaps in a new config and accounts; synchronous, so no request sees half of it. */
  replace(config: GatewayConfig, accounts: AccountRegistry): void {
    const previous = this.generation;
    this.generation = this.build(config, accounts, previous);
    const replaced = previous.forwarder;
    if (replaced === this.generation.forwarder) return;
    // Every request that may still use the replaced forwarder is in flight now; later ones get the new one.
    void this.inFlightDone().then(() => {
      if (this.forwarders.delete(replaced)) replaced.close();
    });
  }

  /** At shutdown, once the listeners have closed. */
  close(): void {
    for (const forwarder of this.forwarders) forwarder.close();
    this.forwarders.clear();
  }

  private build(config: GatewayConfig, accounts: AccountRegistry, previous: Generation | undefined): Generation {
    const before = previous?.context.config;
    // Pools to the upstreams are kept unless the settings the engine copied at construction changed.
    const forwarder =
      previous && before && isDeepStrictEqual(forwardingOf(before), forwardingOf(config)) ? previous.forwarder : this.startForwarder(forwardingOf(config));
    // Unchanged thresholds keep their counters (on the memory store they live in the limiters).
    const loginThrottle =
      previous && before && isDeepStrictEqual(before.brute_force, config.brute_force)
        ? previous.context.loginThrottle
        : new LoginThrottle(this.shared.store, config.brute_force);
    const context: GatewayContext = Object.freeze({ ...this.shared, config, accounts, loginThrottle });
    return { context, handle: createRequestHandler(context, new RouteTable(config.routes), forwarder), forwarder };
  }

  private startForwarder(options: ForwarderOptions): Forwarder {
    const forwarder = this.createForwarder(options);
    this.forwarders.add(forwarder);
    return forwarder;
  }
}

const forwardingOf = (config: GatewayConfig): ForwarderOptions => ({ maxBodyBytes: config.limits.body_size, trustedProxies: config.trusted_proxies });
