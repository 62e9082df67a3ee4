import { createServer, type Server } from 'node:http';
import type { DestinationStream } from 'pino';
import { AccountRegistry } from './accounts/registry.js';
import { accountsSchema } from './accounts/schema.js';
import { systemClock, type Clock } from './clock.js';
import type { GatewayConfig } from './config/schema.js';
import type { GatewayContext } from './context.js';
import type { ConfigOverrides } from './config/load.js';
import { loadYamlFile } from './config/yaml-file.js';
import { describeStore } from './config/store-schema.js';
import { KeyRingKeeper } from './keys/keeper.js';
import { KeyRing } from './keys/key-ring.js';
import { scheduleRotation, type RotationSchedule } from './keys/rotation.js';
import { createLogger } from './log/logger.js';
import { AccessTokens } from './oauth/access-token.js';
import { PolicyRuntime, type ReloadOutcome } from './policies/runtime.js';
import { createForwarder, type Forwarder, type ForwarderOptions } from './proxy/forward.js';
import { ReloadableAdminAccess } from './ops/admin-access.js';
import { ADMIN_OPERATIONS, operationRoute } from './ops/admin-operation.js';
import { startAdminServer, type AdminRoute, type AdminServer } from './ops/admin-server.js';
import { Drain } from './ops/drain.js';
import { Generations, type SharedParts } from './ops/generation.js';
import { healthRoutes } from './ops/health.js';
import { CLIENT_LISTENER, hostForUrl, listen, TLS_LISTENER, urlOf } from './ops/listen.js';
import { Metrics } from './ops/metrics.js';
import { metricsRoute } from './ops/metrics-route.js';
import { ConfigReloader, type GatewayReloadOutcome } from './ops/reload.js';
import { applyServerLimits, serverOptionsOf } from './ops/server-limits.js';
import { CertificateReloader, createTlsServer, describeCertificate, readTlsCredentials } from './ops/tls-listener.js';
import { buildStore } from './store/create.js';

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

/** Load accounts, build the store and key ring, listen, then serve: the whole start-up in order. */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = createLogger(config.log.level, options.logDestination);
  // Read first: a certificate that cannot serve stops the start before anything else is built.
  const tlsCredentials = config.tls && (await readTlsCredentials(config.tls));
  const accountsFile = options.accounts ? undefined : await loadYamlFile(config.accounts, accountsSchema);
  const accounts = options.accounts ?? (await AccountRegistry.fromAccounts(accountsFile ?? { users: [], apps: [] }));
  const { store, sealer, connect } = await buildStore(config, clock, logger);
  const { access_ttl, clock_leeway } = config.tokens;
  const keyRing = new KeyRing({
    algorithm: config.keys.algorithm,
    rotationIntervalMs: config.keys.rotation_interval,
    retentionMs: access_ttl + clock_leeway,
    clock,
  });
  const keeper = new KeyRingKeeper({ ring: keyRing, storage: store.keyRing, sealer, logger, clock });
  store.onReconnect(() => {
    keeper.sync().catch((error: unknown) => logger.error({ err: error }, 'could not load the key ring from the store; will retry'));
  });
  // The memory store answers at once; Redis is awaited in the background so that the gateway listens (not ready) meanwhile.
  if (config.store.kind === 'memory') await keeper.sync();
  const policies = await PolicyRuntime.start({ config, apps: accounts.apps, store, clock, logger, watch: options.watchPolicies ?? true }).catch(
    async (error: unknown) => {
      await store.close();
      throw error;
    },
  );

  // A start that fails from here on releases what it built, the last first, so that none of it lives on
  // (the policies folder watched, a listener bound, a forwarder's pools).
  const built: Array<() => unknown> = [() => store.close(), () => policies.close()];
  const failStart = async (error: unknown): Promise<never> => {
    for (const release of built.reverse()) await release();
    throw error;
  };
  const server = createServer(serverOptionsOf(config.limits));
  const address = await listen(server, config.listen.host, config.listen.port, CLIENT_LISTENER).catch(failStart);
  built.push(() => server.close());
  const url = urlOf('http', address);
  // HTTPS beside plain HTTP, with the same handler and limits; plain stays for local use behind a TLS-terminating balancer.
  const https = tlsCredentials && createTlsServer(tlsCredentials, config.limits);
  const httpsAddress =
    https &&
    config.tls &&
    (await listen(https, config.tls.host ?? config.listen.host, config.tls.port, TLS_LISTENER).catch(failStart));
  if (https) built.push(() => https.close());
  const httpsUrl = httpsAddress && urlOf('https', httpsAddress);
  const listeners = https ? [server, https] : [server];
  const issuer = config.issuer ?? `http://${hostForUrl(config.listen.host)}:${address.port}`;
  const acceptedIssuers = [issuer, ...config.tokens.trusted_issuers];
  const accessTokens = new AccessTokens({
    ring: keyRing,
    issuer,
    acceptedIssuers,
    audience: config.tokens.audience ?? issuer,
    // Without a configured audience each region's tokens carry its own issuer, and the regions accept each other's.
    acceptedAudiences: config.tokens.audience ? [config.tokens.audience] : acceptedIssuers,
    ttlMs: access_ttl,
    leewayMs: clock_leeway,
    clock,
  });
  const drain = new Drain(logger);
  const metrics = new Metrics({ store, keyRing, shutdown: drain });
  const rotation: RotationSchedule = scheduleRotation(
    keeper,
    clock,
    (error) => logger.error({ err: error }, 'key rotation failed; the current key keeps signing'),
    (trigger) => {
      metrics.keyRotated(trigger);
      logger.info({ kids: keyRing.list().map((key) => key.kid), trigger }, 'signing key rotated');
    },
  );
  const shared: SharedParts = { clock, issuer, store, keyRing, keyRotation: rotation, accessTokens, logger, policies, metrics, shutdown: drain };
  const generations = new Generations(shared, config, accounts, options.createForwarder ?? createForwarder, () => drain.inFlightDone());
  built.push(() => rotation.stop(), () => generations.close());
  for (const listener of listeners) drain.attach(listener, generations.listener);

  const admin = options.admin === false ? undefined : await startAdmin(() => generations.current).catch(failStart);
  const watch = options.watchConfig ?? true;
  const reloader = new ConfigReloader({
    generations,
    policies,
    logger,
    overrides: options.configOverrides ?? {},
    accounts: accountsFile,
    watch,
    applied: (next) => {
      for (const listener of listeners) applyServerLimits(listener, next.limits);
      logger.level = next.log.level;
    },
  });
  const certificates = https && config.tls && new CertificateReloader(https, config.tls, logger, watch);
  connect();
  if (!config.issuer && isWildcard(config.listen.host)) {
    logger.warn({ issuer }, 'issuer is not set and listen.host is a wildcard address: set `issuer` to the URL clients use');
  }
  logger.info(
    {
      url,
      httpsUrl,
      ...(tlsCredentials && { certificate: describeCertificate(tlsCredentials.cert) }),
      adminUrl: admin?.url,
      issuer,
      environment: config.environment,
      store: describeStore(config.store),
      routes: config.routes.map((route) => route.path),
      policies: policies.current.policies.size,
      ...accounts.counts,
    },
    'token-gateway listening',
  );

  let closing: Promise<void> | undefined;
  const close = async () => {
    reloader.close();
    certificates?.close();
    await drain.stop(listeners, options.shutdownGraceMs ?? generations.current.config.limits.shutdown_grace);
    rotation.stop();
    policies.close();
    generations.close();
    await admin?.close();
    await store.close();
  };
  return {
    url,
    httpsUrl,
    adminUrl: admin?.url,
    get context() {
      return generations.current;
    },
    server,
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

/** The admin listener; its operations get the context in force when they run, never one kept from start. */
async function startAdmin(current: () => GatewayContext): Promise<AdminServer & { readonly access: ReloadableAdminAccess }> {
  const ctx = current();
  const routes = new Map<string, AdminRoute>([...healthRoutes(ctx), ['/metrics', metricsRoute(() => ctx.metrics.exposition())]]);
  const { host, port } = ctx.config.admin;
  const access = await ReloadableAdminAccess.load(ctx.config);
  for (const operation of ADMIN_OPERATIONS) routes.set(operation.path, operationRoute(operation, access, (op, input) => op.run(current(), input)));
  const server = await startAdminServer(routes, host, port, (error) => ctx.logger.error({ err: error }, 'admin request failed'));
  return { ...server, access };
}

const isWildcard = (host: string): boolean => host === '0.0.0.0' || host === '::';
