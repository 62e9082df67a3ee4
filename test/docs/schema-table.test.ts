import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { duration, filePath, size } from '../../src/config/fields.js';
import { jsonSchemaOf, settingRows, settingsTable, type SettingRow } from '../../src/docs/schema-table.js';

/** The rows of one key of a zod object, as the configuration reference prints them. */
function rowsOf(schema: z.ZodObject, key: string): SettingRow[] {
  const json = jsonSchemaOf(schema);
  return settingRows(json.properties![key]!, key, json.required?.includes(key) ?? false);
}

/** One row's [accepts, default] for a key holding `field`. */
function row(field: z.ZodType, required = false): [string, string] {
  const [only] = rowsOf(z.object({ key: required ? field : field.optional() }), 'key');
  return [only!.accepts, only!.default];
}

describe('docs/schema-table: a settings table from a zod schema', () => {
  it.each<[string, z.ZodType, string]>([
    // [value kind, field, what the "value" column says]
    ['a string', z.string(), 'string'],
    ['a string with a pattern', z.string().regex(/^[a-z]+$/), 'string matching `^[a-z]+$`'],
    ['a boolean', z.boolean(), '`true` or `false`'],
    ['an integer (its type\'s own limits unsaid)', z.number().int(), 'integer'],
    ['an integer with bounds', z.number().int().min(1).max(64), 'integer, 1 to 64'],
    ['an integer with a lower bound', z.number().int().min(0), 'integer, at least 0'],
    ['a positive integer', z.number().int().positive(), 'integer, at least 1'],
    ['an enum', z.enum(['debug', 'info']), '`debug`, `info`'],
    ['either of two plain types (zod writes them as one node)', z.union([z.string(), z.boolean()]), 'string or `true` or `false`'],
    ['either of two types, one with bounds', z.union([z.literal('auto'), z.number().int().min(1).max(256)]), '`auto` or integer, 1 to 256'],
    ['a constant', z.literal('redis'), '`redis`'],
    ['a list of strings', z.array(z.string()), 'list of strings'],
    ['a list of integers with a minimum length', z.array(z.number().int()).min(2), 'list of integers, at least 2'],
    ['a list from an enum', z.array(z.enum(['a', 'b'])), 'list from `a`, `b`'],
    ['a duration with bounds (as YAML writes them)', duration('5s', { min: 1_000, max: 86_400_000 }), 'duration, 1s to 1d'],
    ['a duration with a bound in milliseconds', duration('5s', { min: 1_500 }), 'duration, at least 1500ms'],
    ['a duration that refuses 0s (`timeout: 0s`), its minimum said', duration('5s'), 'duration, at least 1ms'],
    ['a duration that takes 0s, no minimum said', duration('5s', { min: 0, max: 60_000 }), 'duration, at most 1m'],
    ['a size', size('1mb'), 'size, or a number of bytes'],
    ['a file', filePath, 'file path'],
    ['a value with its own wording', z.string().meta({ 'x-accepts': 'a rate like `30ps`' }), 'a rate like `30ps`'],
    ['anything', z.any(), 'any'],
  ])('says what %s accepts', (_kind, field, accepts) => {
    expect(row(field)[0]).toBe(accepts);
  });

  it.each<[string, z.ZodType, boolean, string]>([
    // [case, field, required, the "default" column]
    ['a default, as inline code', z.number().default(8080), false, '`8080`'],
    ['a default list, in YAML flow style', z.array(z.string()).default(['a', 'b']), false, '`[a, b]`'],
    ['an empty default list', z.array(z.string()).default([]), false, '`[]`'],
    ['a default object, in YAML flow style', z.record(z.string(), z.number()).default({ a: 1 }), false, '`{ a: 1 }`'],
    ['a default of a field that parses (a duration written as text)', duration('30m'), false, '`30m`'],
    ['a default of its own wording', z.string().meta({ 'x-default': 'the host name' }), false, 'the host name'],
    ['no default, optional', z.string(), false, 'none'],
    ['no default, required', z.string(), true, 'required'],
  ])('prints %s', (_case, field, required, printed) => {
    expect(row(field, required)[1]).toBe(printed);
  });

  it('prints the default of a key whose type transforms (zod leaves it out on the input side)', () => {
    const schema = z.object({ routes: z.array(z.string()).transform((list) => new Set(list)).default(new Set<string>()) });
    expect(jsonSchemaOf(schema).properties?.routes?.default).toEqual({});
  });

  it('gives an object one row per key beneath it, by dotted path, and none of its own unless it is described', () => {
    const listen = z.object({ host: z.string().default('0.0.0.0').describe('The address.'), port: z.number().int().default(8080).describe('The port.') });
    expect(rowsOf(z.object({ listen: listen.default({ host: '0.0.0.0', port: 8080 }) }), 'listen').map((each) => each.key)).toEqual(['listen.host', 'listen.port']);
    expect(rowsOf(z.object({ listen: listen.describe('Where it listens.') }), 'listen').map((each) => [each.key, each.meaning])).toEqual([
      ['listen', 'Where it listens.'],
      ['listen.host', 'The address.'],
      ['listen.port', 'The port.'],
    ]);
  });

  it('prints nothing as the default of an object that defaults to {} (its keys have their own)', () => {
    const schema = z.object({ tls: z.object({ port: z.number().default(8443).describe('Port.') }).default({ port: 8443 }).describe('TLS.') });
    expect(rowsOf(z.object({ tls: z.object({ port: z.number().default(8443).describe('Port.') }).prefault({}).describe('TLS.') }), 'tls')[0]?.default).toBe('');
    expect(rowsOf(schema, 'tls')[0]?.default).not.toBe('');
  });

  it('gives a list of objects a row of its own and one per key of its items, as key[].name', () => {
    const routes = z.array(z.object({ path: z.string().describe('Prefix.'), timeout: duration('30s').describe('Timeout.') })).default([]).describe('Routes.');
    expect(rowsOf(z.object({ routes }), 'routes').map((each) => [each.key, each.accepts, each.default])).toEqual([
      ['routes', 'list', '`[]`'],
      ['routes[].path', 'string', 'required'],
      ['routes[].timeout', 'duration, at least 1ms', '`30s`'],
    ]);
  });

  it('makes an object whose keys explain nothing on their own one row that names them', () => {
    const endpoints = z.object({ '/token': z.array(z.string()).optional(), '/keys': z.array(z.string()).optional() }).describe('Chains per endpoint.');
    expect(rowsOf(z.object({ endpoints }), 'endpoints').map((each) => [each.key, each.accepts])).toEqual([['endpoints', 'object with the keys `/token`, `/keys`, each a list of strings']]);
  });

  it('reads the object branch of a key that may also be written another way (policies: ./folder)', () => {
    const policies = z.union([z.string(), z.object({ folder: z.string().describe('The folder.') })]).describe('Policies.');
    expect(rowsOf(z.object({ policies }), 'policies').map((each) => each.key)).toEqual(['policies', 'policies.folder']);
  });

  it('prints the table: key, value, default, meaning, and a column more when asked', () => {
    const rows: SettingRow[] = [{ key: 'log.level', accepts: '`info`, `debug`', default: '`info`', meaning: 'How much | to log.' }];
    expect(settingsTable(rows)).toBe(['| key | value | default | meaning |', '| --- | --- | --- | --- |', '| `log.level` | `info`, `debug` | `info` | How much \\| to log. |'].join('\n'));
    expect(settingsTable(rows, { header: 'why this default', of: (each) => `because ${each.key}` }).split('\n')[2]).toBe('| `log.level` | `info`, `debug` | `info` | How much \\| to log. | because log.level |');
  });
});
