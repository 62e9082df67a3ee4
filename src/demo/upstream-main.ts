import { addressOf, DemoUpstreamError, demoUpstreamPort, startDemoUpstream } from './upstream.js';

/**
 * The demo upstream on its own: the compose file's `upstream` service runs
 * it in a container of the gateway image. DEMO_UPSTREAM_HOST (default
 * 127.0.0.1; 0.0.0.0 in a container) and DEMO_UPSTREAM_PORT (default 8081).
 */
const host = process.env.DEMO_UPSTREAM_HOST || '127.0.0.1';
let port: number;
try {
  port = demoUpstreamPort(process.env);
} catch (error) {
  process.stderr.write(`demo upstream: ${(error as Error).message}\n`);
  process.exit(2);
}
const server = await startDemoUpstream(port, host).catch((error: unknown) => {
  if (!(error instanceof DemoUpstreamError)) throw error;
  process.stderr.write(`demo upstream: ${error.message}\n`);
  process.exit(1);
});
process.stderr.write(`demo upstream (not a real API) listening on ${addressOf(server)}\n`);
const stop = () => {
  // Keep-alive connections from the gateway would hold close() open: a demo has nothing in flight worth waiting for.
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
