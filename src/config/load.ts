import { dirname, resolve } from 'node:path';
import { gatewayConfigSchema, type GatewayConfig } from './schema.js';
import { loadYamlFile, type FileReference } from './yaml-file.js';

export interface ConfigOverrides {
  /** `serve --port N` wins over `listen.port`. */
  port?: number;
}

/** Load gateway.yaml: parse, validate against the schema, apply overrides, resolve paths, freeze. */
export async function loadGatewayConfig(file: string, overrides: ConfigOverrides = {}): Promise<GatewayConfig> {
  const parsed = await loadYamlFile(file, gatewayConfigSchema);
  const base = dirname(resolve(file));
  const { encryption_key_file } = parsed.keys;
  const inBase = (file: string | undefined) => (file === undefined ? undefined : resolve(base, file));
  return deepFreeze({
    ...parsed,
    source: resolve(file),
    listen: { ...parsed.listen, port: overrides.port ?? parsed.listen.port },
    accounts: resolve(base, parsed.accounts),
    policies: { ...parsed.policies, folder: resolve(base, parsed.policies.folder) },
    keys: { ...parsed.keys, encryption_key_file: inBase(encryption_key_file) },
    admin: { ...parsed.admin, token_file: inBase(parsed.admin.token_file) },
    tls: parsed.tls && { ...parsed.tls, cert_file: resolve(base, parsed.tls.cert_file), key_file: resolve(base, parsed.tls.key_file) },
  });
}

/**
 * The key of gateway.yaml that names a file, for `loadYamlFile` and
 * `readFailure`: `loadYamlFile(config.accounts, accountsSchema, namedIn(config, 'accounts'))`
 * reports an unreadable accounts file at gateway.yaml's `accounts:` line.
 */
export const namedIn = (config: Pick<GatewayConfig, 'source'>, ...key: PropertyKey[]): FileReference => ({ file: config.source, key });

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
