import { run } from '../cli/run.js';
import { addressOf, startDemoUpstream } from './upstream.js';

/**
 * `npm start`: the demo upstream on 127.0.0.1:8081 (DEMO_UPSTREAM_PORT), then
 * `token-gateway serve` with ./gateway.yaml, whose demo route points at it.
 */
const port = Number(process.env.DEMO_UPSTREAM_PORT ?? 8081);
const upstream = await startDemoUpstream(port);
process.stderr.write(`demo upstream (not a real API) listening on ${addressOf(upstream)}\n`);
const outcome = await run(['serve', ...process.argv.slice(2)], { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
if (outcome === 'running') process.once('exit', () => upstream.close());
else {
  upstream.close();
  process.exitCode = outcome;
}
