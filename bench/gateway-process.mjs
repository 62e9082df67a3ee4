// A gateway process for the benchmarks: `token-gateway serve` with the forwarding engine named on the command line.
//   node bench/gateway-process.mjs <gateway.yaml> [engine]
// engine: `default` (what the gateway ships with) or the name of a module in bench/engines/ exporting
// `createForwarder(options)`. Prints the same "token-gateway listening" log line as `serve`.
import { loadGatewayConfig, startGateway } from '../dist/index.js';

const [configFile, engine = 'default'] = process.argv.slice(2);
if (!configFile) {
  process.stderr.write('usage: node bench/gateway-process.mjs <gateway.yaml> [engine]\n');
  process.exit(2);
}
const createForwarder = engine === 'default' ? undefined : (await import(`./engines/${engine}.mjs`)).createForwarder;
const config = await loadGatewayConfig(configFile);
const gateway = await startGateway({ config, createForwarder, watchPolicies: false });
const stop = () => gateway.close().then(() => process.exit(0), () => process.exit(1));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
