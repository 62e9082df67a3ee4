import { accountsSchema } from '../accounts/schema.js';
import { DEFAULT_REASONS, isReasoned, type Reasoned } from '../config/defaults.js';
import { gatewayConfigSchema } from '../config/schema.js';
import { jsonSchemaOf, settingRows, settingsTable, type SettingRow } from './schema-table.js';

/**
 * The configuration reference of docs/configuration.md: one table per
 * top-level key of gateway.yaml, and one for accounts.yaml. Meanings are the
 * schema's `.describe()` texts, reasons those of DEFAULT_REASONS.
 */

const GATEWAY = jsonSchemaOf(gatewayConfigSchema);

/** Every top-level key of gateway.yaml, in schema order. */
export const GATEWAY_KEYS: readonly string[] = Object.keys(GATEWAY.properties ?? {});

/** Where DEFAULT_REASONS keeps the reason of a key whose path differs from gateway.yaml's. */
const REASON_PATHS: ReadonlyArray<readonly [prefix: string, reasonPrefix: string]> = [
  ['store.redis.', 'redis.'],
  ['routes[].', 'route.'],
  ['policies.folder', 'policies'],
];

/** The reason for a key's default, if it has one. */
export function reasonFor(key: string): Reasoned<string | number | boolean> | undefined {
  if (key === 'policies') return undefined; // its reason is the folder's, printed there
  const [prefix, reasonPrefix] = REASON_PATHS.find(([from]) => key.startsWith(from)) ?? ['', ''];
  const path = reasonPrefix + key.slice(prefix.length);
  const node = path.split('.').reduce<unknown>((tree, part) => (tree as Record<string, unknown> | undefined)?.[part], DEFAULT_REASONS);
  return isReasoned(node) ? node : undefined;
}

/** The rows of one top-level key of gateway.yaml. */
export function gatewayRows(topKey: string): SettingRow[] {
  const node = GATEWAY.properties?.[topKey];
  if (!node) throw new Error(`gateway.yaml has no key ${topKey}`);
  return settingRows(node, topKey, GATEWAY.required?.includes(topKey) ?? false);
}

export function gatewayReference(topKey: string): string {
  const rows = gatewayRows(topKey);
  const withReasons = rows.some((row) => reasonFor(row.key));
  return settingsTable(rows, withReasons ? { header: 'why this default', of: (row) => reasonFor(row.key)?.why ?? '' } : undefined);
}

export function accountsReference(): string {
  const schema = jsonSchemaOf(accountsSchema);
  return settingsTable(Object.entries(schema.properties ?? {}).flatMap(([key, node]) => settingRows(node, key, false)));
}
