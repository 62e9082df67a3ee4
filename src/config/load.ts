import { dirname, resolve } from 'node:path';
import { gatewayConfigSchema, type GatewayConfig } from './schema.js';
import { loadYamlFile } from './yaml-file.js';

export interface ConfigOverrides {
  /** `serve --port N` wins over `listen.port`. */
  port?: number;
}

/** Load gateway.yaml: parse, validate against the schema, apply overrides, resolve paths, freeze. */
export async function loadGatewayConfig(file: string, overrides: ConfigOverrides = {}): Promise<GatewayConfig> {
  const parsed = await loadYamlFile(file, gatewayConfigSchema);
  const base = dirname(resolve(file));
  const { encryption_key_file } = parsed.keys;
  return deepFreeze({
    ...parsed,
    source: resolve(file),
    listen: { ...parsed.listen, port: overrides.port ?? parsed.listen.port },
    accounts: resolve(base, parsed.accounts),
    policies: { ...parsed.policies, folder: resolve(base, parsed.policies.folder) },
    keys: { ...parsed.keys, encryption_key_file: encryption_key_file === undefined ? undefined : resolve(base, encryption_key_file) },
  });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
