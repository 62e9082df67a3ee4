import { POLICY_KINDS } from '../policies/kinds.js';
import { jsonSchemaOf, settingRows, settingsTable } from './schema-table.js';

/** The policy kinds, by the name written as `kind:`. */
export const POLICY_KIND_NAMES: readonly string[] = POLICY_KINDS.map((kind) => kind.kind);

/** The settings table of one policy kind, from its schema. */
export function policySettings(kindName: string): string {
  const kind = POLICY_KINDS.find((each) => each.kind === kindName);
  if (!kind) throw new Error(`no policy kind ${kindName}`);
  const schema = jsonSchemaOf(kind.schema);
  return settingsTable(Object.entries(schema.properties ?? {}).flatMap(([key, node]) => settingRows(node, key, schema.required?.includes(key) ?? false)));
}
