import type { Server } from 'node:http';
import type { DestinationStream } from 'pino';
import { ReloadableAdminAccess } from '../admin/access.js';
import { gatewayAdminRoutes } from '../admin/routes.js';
import { startAdminServer, type AdminServer } from '../admin/server.js';
import type { AccountRegistry } from '../accounts/registry.js';
import { systemClock, type Clock } from '../clock.js';
import type { ConfigOverrides } from '../config/load.js';
import type { GatewayConfig } from '../config/schema.js';
import { describeStore } from '../config/store-schema.js';
import type { GatewayContext } from '../context.js';
import type { KeyRing } from '../keys/key-ring.js';
import { scheduleRotation, type Maintainable, type RotationSchedule } from '../keys/rotation.js';
import { acceptOnSeveralDescriptors, closeListener } from '../listeners/accept-descriptors.js';
import { openClientListeners, type ClientListeners } from '../listeners/client-listeners.js';
import { hostForUrl } from '../listeners/listen.js';
import { applyServerLimits } from '../listeners/server-limits.js';
import { CertificateReloader, describeCertificate, readTlsCredentials, type TlsCredentials } from '../listeners/tls-listener.js';
import { droppedLogLines } from '../log/destination.js';
import { createLogger, type Logger } from '../log/logger.js';
import { refuseConnect } from '../pipeline/connect-refusal.js';
import { PolicyRuntime, type ReloadOutcome } from '../policies/runtime.js';
import { createForwarder } from '../proxy/engine.js';
import type { Forwarder, ForwarderOptions } from '../proxy/forward.js';
import { Metrics } from '../telemetry/metrics.js';
import { RecentRefusals } from '../telemetry/recent-refusals.js';
import { accessTokensOf, issuerOf } from '../tokens/issuer.js';
import { Drain } from './drain.js';
import { Generations } from './generation.js';
import { ConfigReloader, type GatewayReloadOutcome } from './reload.js';
import { Releases } from './releases.js';
import { buildState, loadAccounts, type GatewayState } from './state.js';

export interface GatewayOptions {
  config: GatewayConfig;
  /** Injected in tests to freeze and advance time. */
  clock?: Clock;
  /** Where logs go; stdout by default. */
  logDestination?: DestinationStream;
  /** Already-loaded accounts; by default read from `config.accounts` (a reload reads that file in any case). */
  accounts?: AccountRegistry;
  /** Reload policies when their folder changes (default true; SIGHUP is wired by `serve`). */
  watchPolicies?: boolean;
  /** Reload gateway.yaml, accounts.yaml and the TLS files when they change (default true). */
  watchConfig?: boolean;
  /** What `serve` took from its command line over the file (`--port`); reloads apply it too. */
  configOverrides?: ConfigOverrides;
  /** How long in-flight requests may take to finish on close; default `limits.shutdown_grace` (a test override). */
  shutdownGraceMs?: number;
  /** Open the admin listener (default true); a cluster worker leaves it to the primary. */
  admin?: boolean;
  /**
   * Bind the client listeners only once the store answers and the signing
   * keys are loaded (default false: listen at once and say not-ready). A
   * cluster worker sets it: node:cluster hands a worker connections from the
   * moment it listens, without asking its readiness, so a worker that listened
   * while loading its keys would answer its share of the calls with 503.
   */
  listenWhenReady?: boolean;
  /** The forwarding engine; the benchmark swaps in the engines it compares. */
  createForwarder?: (options: ForwarderOptions) => Forwarder;
}

export interface RunningGateway {
  /** Where the gateway listens, e.g. http://127.0.0.1:8080. */
  readonly url: string;
  /** Where the HTTPS listener listens, e.g. https://127.0.0.1:8443; undefined without `tls`. */
  readonly httpsUrl: string | undefined;
  /** Where the admin listener (metrics, probes, admin API) listens; undefined when it is off. */
  readonly adminUrl: string | undefined;
  /** The context in force now; a reload replaces it (keep it for one request at most). */
  readonly context: GatewayContext;
  readonly server: Server;
  /** Re-reads the policies folder; an invalid set is refused and the current one stays. */
  reloadPolicies(reason?: string): Promise<ReloadOutcome>;
  /**
   * Re-reads gateway.yaml, accounts.yaml and the policies folder (and the TLS
   * files, reported in their own log line); anything invalid is refused and
   * the running configuration stays.
   */
  reload(reason?: string): Promise<GatewayReloadOutcome>;
  /** Graceful stop: drain, then release everything. Calling it again returns the same promise. */
  close(): Promise<void>;
  /** During close: cuts the requests still in flight now instead of at the end of the grace (a second SIGTERM). */
  endGrace(): void;
}

/**
 * The whole start-up, in order, each step a named builder: read what can
 * refuse the start (TLS files, accounts), build the shared state (store, key
 * ring), the policies, bind the listeners, then the token service, the
 * rotation schedule, the first generation, the admin listener and the
 * reloaders. A step that fails releases everything built before it.
 */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = createLogger(config.log.level, options.logDestination);
  // Read first: a certificate that cannot serve stops the start before anything else is built.
  const tls = config.tls && (await readTlsCredentials(config.tls));
  const accounts = await loadAccounts(config, options.accounts);
  const state = await buildState(config, clock, logger);
  const releases = new Releases();
  releases.add(() => state.store.close(), () => state.keeper.stop());
  const drain = new Drain(logger);
  // Before the policies: each compiled policy counts into its series, kept here across reloads.
  let inForce: PolicyRuntime | undefined;
  const metrics = new Metrics({ store: state.store, keyRing: state.keyRing, shutdown: drain, policies: () => inForce?.current.policies.values() ?? [], logLinesDropped: options.logDestination ? undefined : droppedLogLines });
  const figures = (name: string, kind: string) => metrics.policySeries(name, kind);
  const policies = await PolicyRuntime.start({ config, apps: accounts.registry.apps, store: state.store, clock, logger, watch: options.watchPolicies ?? true, figures }).catch(
    (error: unknown) => releases.failStart(error),
  );
  inForce = policies;
  releases.add(() => policies.close());
  if (options.listenWhenReady) {
    state.connect();
    await untilServing(state, clock, logger);
  }
  const listeners = await openClientListeners(config, tls, (server) => releases.add(() => closeListener(server))).catch((error: unknown) => releases.failStart(error));
  const issuer = issuerOf(config, `http://${hostForUrl(config.listen.host)}:${listeners.port}`);
  const rotation = startRotation(state.keeper, state.keyRing, clock, metrics, logger);
  const refusals = new RecentRefusals();
  const shared = {
    clock,
    issuer,
    store: state.store,
    keyRing: state.keyRing,
    keyRotation: rotation,
    accessTokens: accessTokensOf(config, issuer, state.keyRing, clock),
    refreshSuccessorKey: state.refreshSuccessorKey,
    logger,
    policies,
    metrics,
    refusals,
    shutdown: drain,
  };
  const generations = new Generations(shared, config, accounts.registry, options.createForwarder ?? createForwarder, () => drain.inFlightDone());
  releases.add(() => rotation.stop(), () => generations.close());
  for (const listener of listeners.all) {
    drain.attach(listener, generations.listener);
    // node hands CONNECT to no request listener: answered here, or its socket is destroyed with no answer and no line.
    listener.on('connect', (req, socket) => refuseConnect(generations.current, req, socket));
  }
  const admin = options.admin === false ? undefined : await startAdmin(() => generations.current).catch((error: unknown) => releases.failStart(error));
  const watch = options.watchConfig ?? true;
  const reloader = new ConfigReloader({
    generations,
    policies,
    logger,
    overrides: options.configOverrides ?? {},
    accounts: accounts.file,
    watch,
    applied: (next) => {
      for (const listener of listeners.all) applyServerLimits(listener, next.limits);
      logger.level = next.log.level;
    },
  });
  const certificates = listeners.https && config.tls && new CertificateReloader(listeners.https, config.tls, logger, watch);
  if (!options.listenWhenReady) state.connect();
  announceListening(generations.current, listeners, tls, admin, accounts.registry);
  acceptBurstsOnEveryListener(listeners, logger);

  let closing: Promise<void> | undefined;
  const close = async () => {
    reloader.close();
    certificates?.close();
    await drain.stop(listeners.all, options.shutdownGraceMs ?? generations.current.config.limits.shutdown_grace);
    rotation.stop();
    policies.close();
    generations.close();
    await admin?.close();
    // Leaves the heartbeats first: a rotation elsewhere must not wait for, or report, an instance that stopped.
    await state.keeper.stop();
    await state.store.close();
  };
  return {
    url: listeners.url,
    httpsUrl: listeners.httpsUrl,
    adminUrl: admin?.url,
    get context() {
      return generations.current;
    },
    server: listeners.server,
    reloadPolicies: (reason = 'requested') => policies.reload(reason),
    reload: (reason = 'requested') => {
      void certificates?.reload(reason);
      void admin?.access.reload(reason, generations.current.logger);
      return reloader.reload(reason);
    },
    close: () => (closing ??= close()),
    endGrace: () => drain.endGrace(),
  };
}

/** How often a worker that waits to listen looks at its store and keys again. */
const SERVING_POLL_MS = 50;

/**
 * Resolves once the store answers and the keys are loaded, looking on the
 * clock's timer. No upper bound: a worker started while Redis is away waits,
 * alive and not listening, until it returns (its primary's /readyz lists it as
 * starting); a signal meanwhile ends it, with nothing in flight to drain.
 */
function untilServing(state: GatewayState, clock: Clock, logger: Logger): Promise<void> {
  if (state.store.health().ready && state.keyRing.loaded) return Promise.resolve();
  logger.info('waiting for the store and the signing keys before listening');
  return new Promise((resolve) => {
    const look = () => {
      if (state.store.health().ready && state.keyRing.loaded) resolve();
      else clock.setTimer(look, SERVING_POLL_MS);
    };
    look();
  });
}

/** The key ring's maintenance on its schedule; every rotation (scheduled or by the admin API) is counted and logged. */
function startRotation(keeper: Maintainable, ring: KeyRing, clock: Clock, metrics: Metrics, logger: Logger): RotationSchedule {
  return scheduleRotation(
    keeper,
    clock,
    (error) => logger.error({ err: error }, 'key rotation failed; the current key keeps signing'),
    (trigger) => {
      metrics.keyRotated(trigger);
      logger.info({ kids: ring.list().map((key) => key.kid), trigger }, 'signing key rotated');
    },
  );
}

/** The admin listener; its operations get the context in force when they run, never one kept from start. */
async function startAdmin(current: () => GatewayContext): Promise<AdminServer & { readonly access: ReloadableAdminAccess }> {
  const ctx = current();
  const access = await ReloadableAdminAccess.load(ctx.config);
  const { host, port } = ctx.config.admin;
  const server = await startAdminServer(gatewayAdminRoutes(current, access), host, port, (error) => ctx.logger.error({ err: error }, 'admin request failed'));
  return { ...server, access };
}

/** The one line that says the gateway serves, with what an operator checks first; and a warning about a guessed issuer. */
function announceListening(ctx: GatewayContext, listeners: ClientListeners, tls: TlsCredentials | undefined, admin: AdminServer | undefined, accounts: AccountRegistry): void {
  const { config, issuer, logger } = ctx;
  if (!config.issuer && isWildcard(config.listen.host)) {
    logger.warn({ issuer }, 'issuer is not set and listen.host is a wildcard address: set `issuer` to the URL clients use');
  }
  logger.info(
    {
      url: listeners.url,
      httpsUrl: listeners.httpsUrl,
      ...(tls && { certificate: describeCertificate(tls.cert) }),
      adminUrl: admin?.url,
      issuer,
      environment: config.environment,
      store: describeStore(config.store),
      routes: config.routes.map((route) => route.path),
      policies: ctx.policies.current.policies.size,
      ...accounts.counts,
    },
    'token-gateway listening',
  );
}

/**
 * More descriptors for each client listener (accept-descriptors.ts), in the
 * background: the gateway serves on the one it bound meanwhile, and a helper
 * that fails costs a warning, never the start.
 */
function acceptBurstsOnEveryListener(listeners: ClientListeners, logger: Logger): void {
  for (const listener of listeners.all) {
    // Named by the config key that places it, as a bind failure is.
    const name = listener === listeners.https ? 'tls' : 'listen';
    void acceptOnSeveralDescriptors(listener).then(({ problem }) => {
      if (problem) logger.warn({ listener: name, problem }, 'new connections are accepted one per turn of the event loop (the listening socket could not be copied): a burst of them waits longer');
    });
  }
}

const isWildcard = (host: string): boolean => host === '0.0.0.0' || host === '::';
