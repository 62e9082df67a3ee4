import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DestinationStream } from 'pino';
import { AccountRegistry } from './accounts/registry.js';
import { systemClock, type Clock } from './clock.js';
import type { GatewayConfig } from './config/schema.js';
import type { GatewayContext } from './context.js';
import { StartupError } from './config/errors.js';
import { describeStore } from './config/store-schema.js';
import { KeyRingKeeper } from './keys/keeper.js';
import { KeyRing } from './keys/key-ring.js';
import { scheduleRotation, type RotationSchedule } from './keys/rotation.js';
import { createLogger } from './log/logger.js';
import { AccessTokens } from './oauth/access-token.js';
import { LoginThrottle } from './oauth/brute-force.js';
import { PolicyRuntime, type ReloadOutcome } from './policies/runtime.js';
import { createForwarder, type Forwarder, type ForwarderOptions } from './proxy/forward.js';
import { RouteTable } from './proxy/routes.js';
import { ADMIN_OPERATIONS, operationRoute, type AdminAccess } from './ops/admin-operation.js';
import { startAdminServer, type AdminRoute, type AdminServer } from './ops/admin-server.js';
import { healthRoutes } from './ops/health.js';
import { Metrics } from './ops/metrics.js';
import { metricsRoute } from './ops/metrics-route.js';
import { createRequestHandler } from './server.js';
import { buildStore } from './store/create.js';

export interface GatewayOptions {
  config: GatewayConfig;
  /** Injected in tests to freeze and advance time. */
  clock?: Clock;
  /** Where logs go; stdout by default. */
  logDestination?: DestinationStream;
  /** Already-loaded accounts; by default read from `config.accounts`. */
  accounts?: AccountRegistry;
  /** Reload policies when their folder changes (default true; SIGHUP is wired by `serve`). */
  watchPolicies?: boolean;
  /** How long in-flight requests may take to finish on close. */
  shutdownGraceMs?: number;
  /** Open the admin listener (default true); a cluster worker leaves it to the primary. */
  admin?: boolean;
  /** The forwarding engine; the benchmark swaps in the engines it compares. */
  createForwarder?: (options: ForwarderOptions) => Forwarder;
}

export interface RunningGateway {
  /** Where the gateway listens, e.g. http://127.0.0.1:8080. */
  readonly url: string;
  /** Where the admin listener (metrics, probes, admin API) listens; undefined when it is off. */
  readonly adminUrl: string | undefined;
  readonly context: GatewayContext;
  readonly server: Server;
  /** Re-reads the policies folder; an invalid set is refused and the current one stays. */
  reloadPolicies(reason?: string): Promise<ReloadOutcome>;
  close(): Promise<void>;
}

/** Load accounts, build the store and key ring, listen, then serve: the whole start-up in order. */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = createLogger(config.log.level, options.logDestination);
  const accounts = options.accounts ?? (await AccountRegistry.load(config.accounts));
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
  const forwarder = (options.createForwarder ?? createForwarder)({ maxBodyBytes: config.limits.body_size, trustedProxies: config.trusted_proxies });
  const routes = new RouteTable(config.routes);

  const { headers_timeout, request_timeout, keep_alive_timeout } = config.limits;
  const server = createServer({
    headersTimeout: headers_timeout,
    requestTimeout: request_timeout,
    keepAliveTimeout: keep_alive_timeout,
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(headers_timeout / 4)),
  });
  const address = await listen(server, config.listen.host, config.listen.port);
  const url = `http://${hostForUrl(address.address)}:${address.port}`;
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
  const loginThrottle = new LoginThrottle(store, config.brute_force);
  const metrics = new Metrics({ store, keyRing });
  const rotation: RotationSchedule = scheduleRotation(
    keeper,
    clock,
    (error) => logger.error({ err: error }, 'key rotation failed; the current key keeps signing'),
    (trigger) => {
      metrics.keyRotated(trigger);
      logger.info({ kids: keyRing.list().map((key) => key.kid), trigger }, 'signing key rotated');
    },
  );
  const context: GatewayContext = { config, clock, issuer, accounts, store, keyRing, keyRotation: rotation, accessTokens, logger, policies, loginThrottle, metrics };
  server.on('request', createRequestHandler(context, routes, forwarder));

  const admin = options.admin === false ? undefined : await startAdmin(context).catch(async (error: unknown) => {
    rotation.stop();
    server.close();
    await store.close();
    throw error;
  });
  connect();
  if (!config.issuer && isWildcard(config.listen.host)) {
    logger.warn({ issuer }, 'issuer is not set and listen.host is a wildcard address: set `issuer` to the URL clients use');
  }
  logger.info(
    { url, adminUrl: admin?.url, issuer, environment: config.environment, store: describeStore(config.store), routes: config.routes.map((route) => route.path), policies: policies.current.policies.size, ...accounts.counts },
    'token-gateway listening',
  );

  return {
    url,
    adminUrl: admin?.url,
    context,
    server,
    reloadPolicies: (reason = 'requested') => policies.reload(reason),
    close: () => shutDown(server, options.shutdownGraceMs ?? 10_000, async () => {
      rotation.stop();
      policies.close();
      forwarder.close();
      await admin?.close();
      await store.close();
    }),
  };
}

async function startAdmin(ctx: GatewayContext): Promise<AdminServer> {
  const routes = new Map<string, AdminRoute>([...healthRoutes(ctx), ['/metrics', metricsRoute(() => ctx.metrics.exposition())]]);
  const { host, port } = ctx.config.admin;
  const access = await adminAccessOf(ctx.config);
  for (const operation of ADMIN_OPERATIONS) routes.set(operation.path, operationRoute(operation, access, (op, input) => op.run(ctx, input)));
  return startAdminServer(routes, host, port, (error) => ctx.logger.error({ err: error }, 'admin request failed'));
}

/** Who may call the admin API: the token of admin.token_file, or anyone on loopback when there is none. */
export async function adminAccessOf(config: GatewayConfig): Promise<AdminAccess> {
  const { host, token_file } = config.admin;
  const loopback = host === 'localhost' || host === '::1' || host.startsWith('127.');
  if (token_file === undefined) return { token: undefined, loopback };
  const token = await readFile(token_file, 'utf8').then(
    (text) => text.trim(),
    (error: NodeJS.ErrnoException) => {
      throw new StartupError(`admin.token_file: cannot read ${token_file} (${error.code ?? error.message})`);
    },
  );
  if (token.length < 16) throw new StartupError(`admin.token_file: ${token_file} holds ${token.length} characters; an admin token needs at least 16 (openssl rand -base64 32)`);
  return { token, loopback };
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

const hostForUrl = (host: string): string => (host.includes(':') ? `[${host}]` : host);
const isWildcard = (host: string): boolean => host === '0.0.0.0' || host === '::';

/** Stop accepting, let in-flight requests finish within the grace period, then release everything. */
async function shutDown(server: Server, graceMs: number, release: () => Promise<void>): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const grace = setTimeout(() => server.closeAllConnections(), graceMs).unref();
  await closed;
  clearTimeout(grace);
  await release();
}
