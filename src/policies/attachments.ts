import type { AppAccount } from '../accounts/schema.js';
import { POLICY_ENDPOINTS } from '../config/paths.js';
import type { GatewayConfig } from '../config/schema.js';
import type { PolicyAttachments, PolicyReference } from './policy-set.js';

/** Where gateway.yaml and accounts.yaml attach policies, with the keys they wrote them under. */
export function attachmentsOf(config: GatewayConfig, apps: readonly AppAccount[]): PolicyAttachments {
  const inConfig = (path: readonly PropertyKey[], names: readonly string[]): PolicyReference => ({ file: config.source, path, names });
  return {
    defaults: inConfig(['policies', 'defaults'], config.policies.defaults),
    endpoints: new Map(POLICY_ENDPOINTS.map((path) => [path, inConfig(['policies', 'endpoints', path], config.policies.endpoints[path] ?? [])])),
    routes: new Map(config.routes.map((route, index) => [route.path, inConfig(['routes', index, 'policies'], route.policies)])),
    apps: new Map(apps.map((app, index) => [app.client_id, { file: config.accounts, path: ['apps', index, 'policies'], names: app.policies }])),
  };
}
