import { describe, expect, it } from 'vitest';
import { expecting, valueText, z } from '../../src/config/zod.js';

const problem = (schema: z.ZodType, input: unknown): string | undefined => {
  const result = schema.safeParse(input);
  return result.success ? undefined : result.error.issues[0]?.message;
};

describe("zod's messages, in the words `token-gateway check` prints", () => {
  it.each<[string, z.ZodType, unknown, string]>([
    ['a number too big', z.number().max(65535), 70000, 'must be at most 65535, got 70000'],
    ['a number too small, exclusive', z.number().positive(), -3, 'must be more than 0, got -3'],
    ['a number too small, inclusive', z.number().int().min(1), 0, 'must be at least 1, got 0'],
    ['a number below, exclusive', z.number().lt(10), 10, 'must be less than 10, got 10'],
    ['a string too short', z.string().min(16), 'short', 'must be at least 16 characters, got 5 characters'],
    ['a list too long', z.array(z.string()).max(1), ['a', 'b'], 'must be at most 1 entry, got 2 entries'],
    ['a value outside an enum', z.enum(['ES256', 'RS256']), 'HS256', 'expected one of ES256, RS256, got "HS256"'],
    ['a literal', z.literal('auto'), 'manual', 'expected auto, got "manual"'],
    ['a wrong type', z.array(z.string()), 3, 'expected a list, got a number'],
    ['a mapping expected', z.object({ a: z.string() }), 'drop', 'expected a mapping (key: value lines), got a string'],
    ['a boolean expected', z.boolean(), 'yes', 'expected true or false, got a string'],
    ['a string expected', z.string(), 123456, 'expected a string, got a number'],
    ['a union of simple forms', z.union([z.literal('auto'), z.number()]), 'abc', 'expected auto or a number, got "abc"'],
  ])('%s', (_case, schema, input, message) => {
    expect(problem(schema, input)).toBe(message);
  });

  it('says a missing key is required, and what it takes', () => {
    expect(problem(z.object({ password_hash: z.string() }), {})).toBe('required: expected a string');
  });

  it('says a missing key of an enum is required, and what it takes, never "got undefined"', () => {
    expect(problem(z.object({ default: z.enum(['allow', 'deny']) }), {})).toBe('required: expected one of allow, deny');
  });

  it('gives a schema that words its own expectation the same "required" for a missing key', () => {
    const rate = z.object({ rate: z.string({ error: expecting('expected a rate like 30ps') }) });
    expect(problem(rate, {})).toBe('required: expected a rate like 30ps');
    expect(problem(rate, { rate: 5 })).toBe('expected a rate like 30ps, got 5');
    expect(valueText(undefined)).toBe('nothing');
  });

  it("keeps a schema's own message", () => {
    expect(problem(z.string().min(1, 'expected a query parameter name'), '')).toBe('expected a query parameter name');
  });

  it("gives a union whose branch went deeper zod's own message, not a guess", () => {
    const deep = z.union([z.object({ a: z.number() }), z.object({ b: z.number() })]);
    expect(problem(deep, { a: 'x' })).toBeTypeOf('string');
  });

  it('never prints a long value whole: it may be a secret typed into the wrong key', () => {
    const secret = 'x'.repeat(64);
    expect(valueText(secret)).toBe('a string of 64 characters');
    // A wrong type says the kind only: a number where a hash goes may be the secret itself.
    expect(problem(z.string(), 987654)).toBe('expected a string, got a number');
    expect(problem(z.enum(['active', 'suspended']), secret)).toBe('expected one of active, suspended, got a string of 64 characters');
    expect(valueText(null)).toBe('nothing (null)');
    expect(valueText({ a: 1 })).toBe('a mapping');
  });
});
