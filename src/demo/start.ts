import { run } from '../cli/run.js';
import { EXIT } from '../cli/io.js';
import { addressOf, DemoUpstreamError, demoUpstreamPort, startDemoUpstream } from './upstream.js';

/**
 * `npm start`: the demo upstream on 127.0.0.1:8081 (DEMO_UPSTREAM_PORT), then
 * `token-gateway serve` with ./gateway.yaml, whose demo route points at it.
 * What stops either (a port taken) is one line on stderr and a non-zero exit,
 * never a stack trace: this is the first command a newcomer runs.
 */
function fail(error: unknown, exitCode: number): never {
  if (!(error instanceof DemoUpstreamError)) throw error;
  process.stderr.write(`npm start: demo upstream: ${error.message}\n`);
  process.exit(exitCode);
}

let port: number;
try {
  port = demoUpstreamPort(process.env);
} catch (error) {
  fail(error, EXIT.usage);
}
const upstream = await startDemoUpstream(port).catch((error: unknown) => fail(error, EXIT.invalid));
process.stderr.write(`demo upstream (not a real API) listening on ${addressOf(upstream)}\n`);
const outcome = await run(['serve', ...process.argv.slice(2)], { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
if (outcome === 'running') process.once('exit', () => upstream.close());
else {
  upstream.close();
  process.exitCode = outcome;
}
