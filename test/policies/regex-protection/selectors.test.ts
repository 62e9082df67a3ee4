import { describe, expect, it } from 'vitest';
import { parseSelector, type Segment } from '../../../src/policies/regex-protection/selectors.js';

const key = (name: string): Segment => ({ kind: 'key', key: name });
const index = (at: number): Segment => ({ kind: 'index', index: at });
const ANY: Segment = { kind: 'any' };

describe('selectors: the JSONPath subset json_body accepts', () => {
  it.each<[string, Segment[]]>([
    ['$', []],
    ['$.user', [key('user')]],
    ['$.user.name', [key('user'), key('name')]],
    ['$.x-request_id$', [key('x-request_id$')]],
    ["$['first name']", [key('first name')]],
    ['$["it\'s"]', [key("it's")]],
    ["$['a\\'b\\\\c']", [key("a'b\\c")]],
    ["$['a.b'].c", [key('a.b'), key('c')]],
    ['$.items[0].name', [key('items'), index(0), key('name')]],
    ['$.items[*].name', [key('items'), ANY, key('name')]],
    ['$.*', [ANY]],
    ['$[*][*]', [ANY, ANY]],
  ])('%s', (source, segments) => {
    expect(parseSelector(source)).toEqual({ selector: { source, segments } });
  });
});

describe('selectors: what is refused, and why', () => {
  it.each([
    ['user.name', 'must start with "$" (the whole body)'],
    ['', 'must start with "$" (the whole body)'],
    ['$..name', 'at character 2: recursive descent ("..") is not supported; use "json_body: all" or list the paths'],
    ['$.', 'at character 2: expected a key name after "." (use [\'...\'] for other characters)'],
    ['$.9lives', 'at character 2: expected a key name after "." (use [\'...\'] for other characters)'],
    ['$[-1]', 'at character 2: expected [n], [*], [\'key\'] or ["key"] (no filters, slices or negative indexes)'],
    ['$[0:2]', 'at character 2: expected [n], [*], [\'key\'] or ["key"] (no filters, slices or negative indexes)'],
    ['$[?(@.x)]', 'at character 2: expected [n], [*], [\'key\'] or ["key"] (no filters, slices or negative indexes)'],
    ["$['open", "at character 2: unterminated '-quoted key"],
    ["$['a'b]", 'at character 2: expected "]" after the closing \''],
    ['$user', 'at character 2: unexpected "u"; expected ".key", ".*", or a [...] segment'],
    ['$.a b', 'at character 4: unexpected " "; expected ".key", ".*", or a [...] segment'],
  ])('%j: %s', (source, error) => {
    expect(parseSelector(source)).toEqual({ error });
  });
});
