export { startGateway, type GatewayOptions, type RunningGateway } from './lifecycle/start.js';
export type { GatewayReloadOutcome } from './lifecycle/reload.js';
export { loadGatewayConfig } from './config/load.js';
export { ConfigError, type ConfigIssue } from './config/errors.js';
export { catalogue, type ErrorCode } from './errors/catalogue.js';
export { hashSecret, verifySecret } from './accounts/secret-hash.js';
export type { Clock } from './clock.js';
