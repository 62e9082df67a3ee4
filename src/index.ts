export { startGateway, type GatewayOptions, type RunningGateway } from './gateway.js';
export type { GatewayReloadOutcome } from './ops/reload.js';
export { loadGatewayConfig } from './config/load.js';
export { ConfigError, type ConfigIssue } from './config/errors.js';
export { catalogue, type ErrorCode } from './errors/catalogue.js';
export { hashSecret, verifySecret } from './accounts/secret-hash.js';
export type { Clock } from './clock.js';
