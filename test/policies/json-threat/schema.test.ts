import { describe, expect, it } from 'vitest';
import { jsonThreatSchema } from '../../../src/policies/json-threat/schema.js';

const entry = (settings: Record<string, unknown> = {}) => ({ name: 'json-guard', kind: 'json-threat', ...settings });
const SETTINGS = ['max_depth', 'max_object_entries', 'max_array_elements', 'max_name_length', 'max_string_length', 'max_body_size'] as const;

describe('json-threat schema', () => {
  it('protects with defaults when an entry has no settings', () => {
    expect(jsonThreatSchema.parse(entry())).toEqual({
      ...entry(),
      max_depth: 10,
      max_object_entries: 15,
      max_array_elements: 20,
      max_name_length: 50,
      max_string_length: 500,
      max_body_size: 64 * 1024,
      require_valid_json: false,
      mode: 'enforce',
    });
  });

  it.each([
    [{ max_body_size: '1mb' }, { max_body_size: 1024 * 1024 }],
    [{ max_body_size: 512 }, { max_body_size: 512 }],
    [{ max_depth: 1, max_string_length: 100_000 }, { max_depth: 1, max_string_length: 100_000 }],
  ])('accepts %j', (settings, expected) => {
    expect(jsonThreatSchema.parse(entry(settings))).toMatchObject(expected);
  });

  it.each([
    ['a zero limit', { max_depth: 0 }],
    ['a negative limit', { max_array_elements: -1 }],
    ['a fractional limit', { max_object_entries: 1.5 }],
    ['a limit written as text', { max_name_length: '50' }],
    ['a size without a unit', { max_body_size: 'lots' }],
    ['a zero size', { max_body_size: '0kb' }],
    ['an unknown key', { max_keys: 3 }],
    ['another kind', { kind: 'regex-protection' }],
  ])('refuses %s', (_label, settings) => {
    expect(jsonThreatSchema.safeParse(entry(settings)).success).toBe(false);
  });

  it.each(SETTINGS)('describes %s for operators', (key) => {
    expect(jsonThreatSchema.shape[key].description).toMatch(/\w+/);
  });
});

describe('json-threat schema: unlimited and require_valid_json', () => {
  it('reads unlimited as no limit, for every limit', () => {
    const unlimited = Object.fromEntries(SETTINGS.map((key) => [key, 'unlimited']));
    expect(jsonThreatSchema.parse(entry(unlimited))).toMatchObject(Object.fromEntries(SETTINGS.map((key) => [key, Infinity])));
  });

  it('keeps require_valid_json off by default', () => {
    expect(jsonThreatSchema.parse(entry()).require_valid_json).toBe(false);
    expect(jsonThreatSchema.parse(entry({ require_valid_json: true })).require_valid_json).toBe(true);
  });

  it.each([
    [{ max_depth: 'none' }, 'expected a positive whole number or unlimited'],
    [{ max_body_size: 'lots' }, 'expected unlimited or a size like 16kb or 1mb, got "lots"'],
    [{ require_valid_json: 'yes' }, ''],
  ])('refuses %j, saying why', (settings, message) => {
    const parsed = jsonThreatSchema.safeParse(entry(settings));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toContain(message);
  });

  it('describes require_valid_json for operators', () => {
    expect(jsonThreatSchema.shape.require_valid_json.description).toMatch(/valid JSON/);
  });
});
