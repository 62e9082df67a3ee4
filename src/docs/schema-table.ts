import { z } from '../config/zod.js';
import { code, table } from './markdown.js';
import { durationText } from '../config/units.js';

/**
 * A settings table from a zod schema: one row per key, with what it accepts,
 * its default and its `.describe()` text. The schema is read through
 * `z.toJSONSchema` on its input side (what a YAML file holds), plus the
 * `x-` metadata of src/config/fields.ts for what JSON Schema cannot say
 * (durations and their bounds, sizes, files).
 */

export interface JsonSchema {
  /** One type, or several where zod writes a union of plain types as one node (`type: [number, string]`). */
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly default?: unknown;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly minItems?: number;
  readonly pattern?: string;
  readonly 'x-format'?: string;
  readonly 'x-accepts'?: string;
  readonly 'x-default'?: string;
  readonly 'x-minimum-ms'?: number;
  readonly 'x-maximum-ms'?: number;
}

export interface SettingRow {
  /** Dotted path as written in YAML: `listen.port`, `routes[].timeout`. */
  readonly key: string;
  readonly accepts: string;
  readonly default: string;
  readonly meaning: string;
}

export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    // On the input side zod leaves out a `.default()` whose type transforms (`routes: []`); it is still the default.
    override: ({ zodSchema, jsonSchema }) => {
      const def = zodSchema._zod.def;
      if (def.type === 'default' && jsonSchema.default === undefined) jsonSchema.default = JSON.parse(JSON.stringify(def.defaultValue));
    },
  }) as JsonSchema;
}

/** The rows of one key and everything under it. */
export function settingRows(node: JsonSchema, key: string, required: boolean): SettingRow[] {
  const object = objectBranch(node);
  const childrenOf = (parent: JsonSchema, prefix: string) =>
    Object.entries(parent.properties ?? {}).flatMap(([name, child]) => settingRows(child, `${prefix}.${name}`, parent.required?.includes(name) ?? false));
  const own: SettingRow = { key, accepts: accepts(node), default: defaultOf(node, required), meaning: node.description ?? '' };
  if (object && !collapses(object)) return [...(node.description ? [own] : []), ...childrenOf(object, key)];
  if (node.type === 'array' && node.items?.properties) return [own, ...childrenOf(node.items, `${key}[]`)];
  return [own];
}

/** The object a key holds, also when it may be written another way (`policies: ./folder`). */
function objectBranch(node: JsonSchema): JsonSchema | undefined {
  if (node.properties) return node;
  return node.anyOf?.find((branch) => branch.properties);
}

/** An object whose keys explain nothing on their own (`policies.endpoints`) is one row that names them. */
function collapses(object: JsonSchema): boolean {
  const children = Object.values(object.properties ?? {});
  return children.length > 0 && children.every((child) => child.description === undefined);
}

function accepts(node: JsonSchema): string {
  if (node['x-accepts']) return node['x-accepts'];
  const format = node['x-format'];
  if (format) return FORMATS[format]?.(node) ?? format;
  if (node.enum) return node.enum.map((value) => code(String(value))).join(', ');
  if (node.const !== undefined) return code(String(node.const));
  if (node.anyOf) return node.anyOf.map(accepts).join(' or ');
  if (Array.isArray(node.type)) return (node.type as readonly string[]).map((type) => accepts({ ...node, type })).join(' or ');
  const object = objectBranch(node);
  if (object && collapses(object)) {
    const [first] = Object.values(object.properties ?? {});
    return `object with the keys ${Object.keys(object.properties ?? {}).map(code).join(', ')}, each a ${first ? accepts(first) : 'value'}`;
  }
  switch (node.type) {
    case 'integer':
    case 'number':
      return `integer${range(node.minimum ?? (node.exclusiveMinimum === undefined ? undefined : node.exclusiveMinimum + 1), node.maximum, (n) => String(n))}`;
    case 'string':
      return node.pattern ? `string matching ${code(node.pattern)}` : 'string';
    case 'boolean':
      return '`true` or `false`';
    case 'array':
      if (node.items?.properties) return 'list';
      if (node.items?.enum) return `list from ${accepts(node.items)}`;
      return `list of ${node.items ? plural(accepts(node.items)) : 'values'}${node.minItems ? `, at least ${node.minItems}` : ''}`;
    case 'object':
      return 'object';
    default:
      return 'any';
  }
}

const FORMATS: Readonly<Record<string, (node: JsonSchema) => string>> = {
  // Every duration is at least 0ms; a minimum above that is said, 1ms included (`timeout: 0s` is refused).
  duration: (node) => `duration${range(node['x-minimum-ms'], node['x-maximum-ms'], durationText, 0)}`,
  size: () => 'size, or a number of bytes',
  'http-url': () => 'http:// or https:// URL, no query or fragment',
  'redis-url': () => 'redis:// or rediss:// URL',
  file: () => 'file path',
  'address-ranges': () => 'IPv4 or IPv6 address or CIDR range, or a list of them',
  'policy-names': () => 'list of policy names',
};

/** Bounds worth saying: none for the type's own limits. */
function range(min: number | undefined, max: number | undefined, show: (n: number) => string, trivialMin = Number.NEGATIVE_INFINITY): string {
  const low = min !== undefined && min > trivialMin && min > Number.MIN_SAFE_INTEGER ? min : undefined;
  const high = max !== undefined && max < Number.MAX_SAFE_INTEGER ? max : undefined;
  if (low !== undefined && high !== undefined) return `, ${show(low)} to ${show(high)}`;
  if (low !== undefined) return `, at least ${show(low)}`;
  if (high !== undefined) return `, at most ${show(high)}`;
  return '';
}

/** `string` to `strings`, `Redis URL` to `Redis URLs`: the first noun of a value phrase. */
function plural(phrase: string): string {
  return phrase.replace(/\b(URL|string|integer|path|name)\b/, '$1s');
}

function defaultOf(node: JsonSchema, required: boolean): string {
  if (node['x-default']) return node['x-default'];
  if (node.default !== undefined) {
    const object = objectBranch(node);
    if (object && !collapses(object) && isEmptyObject(node.default)) return '';
    return code(yamlInline(node.default));
  }
  return required ? 'required' : 'none';
}

const isEmptyObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

/** A default as it would be written in YAML flow style. */
function yamlInline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(yamlInline).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => ` ${k}: ${yamlInline(v)}`).join(',')}${Object.keys(value).length ? ' ' : ''}}`;
  return String(value);
}

/** The table of some rows; `extra` adds a column (the reason for a default). */
export function settingsTable(rows: readonly SettingRow[], extra?: { header: string; of: (row: SettingRow) => string }): string {
  const headers = ['key', 'value', 'default', 'meaning', ...(extra ? [extra.header] : [])];
  return table(
    headers,
    rows.map((row) => [code(row.key), row.accepts, row.default, row.meaning, ...(extra ? [extra.of(row)] : [])]),
  );
}

