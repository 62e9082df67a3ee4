import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds } from '../../src/http/json-body.js';

describe('jsonDepthExceeds', () => {
  it.each([
    ['{}', 1, false],
    ['{"a":{"b":1}}', 1, true],
    ['{"a":{"b":1}}', 2, false],
    ['[[[[]]]]', 3, true],
    ['"[[[[[[[["', 1, false],
    ['{"a":"\\"[[[[["}', 1, false],
    ['[{},{},{}]', 2, false],
  ])('%s with limit %i -> %s', (text, limit, exceeds) => expect(jsonDepthExceeds(text, limit)).toBe(exceeds));

  it('handles a hostile 100,000-deep document without recursion', () => {
    expect(jsonDepthExceeds('['.repeat(100_000), 32)).toBe(true);
  });
});
