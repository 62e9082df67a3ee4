import { describe, expect, it } from 'vitest';
import { parsePathCondition, type PathCondition } from '../../../src/migration/apigee/conditions.js';

const under = (suffix: string, withBase = false): PathCondition => ({ kind: 'under', suffix, withBase });
const exactly = (suffix: string): PathCondition => ({ kind: 'exactly', suffix });

describe('migration/apigee/conditions: the flow conditions a route or an endpoint can express', () => {
  it.each<[string, PathCondition]>([
    // Everything under a path: a prefix route.
    ['proxy.pathsuffix MatchesPath "/orders/**"', under('/orders')],
    ['proxy.pathsuffix ~/ "/orders/**"', under('/orders')],
    ['proxy.pathsuffix MatchesPath "/orders/**/"', under('/orders')],
    ['proxy.pathsuffix MatchesPath "/a/b-c/d_e.f/**"', under('/a/b-c/d_e.f')],
    ['proxy.pathsuffix MatchesPath "/**"', under('')],
    ['(proxy.pathsuffix MatchesPath "/orders/**")', under('/orders')],
    ['  proxy.pathsuffix   MatchesPath   "/orders/**"  ', under('/orders')],
    // One path and everything under it: exactly a prefix route, base included.
    ['(proxy.pathsuffix MatchesPath "/orders") or (proxy.pathsuffix MatchesPath "/orders/**")', under('/orders', true)],
    ['proxy.pathsuffix MatchesPath "/orders/**" OR proxy.pathsuffix = "/orders"', under('/orders', true)],
    ['proxy.pathsuffix == "/orders" || proxy.pathsuffix ~/ "/orders/**"', under('/orders', true)],
    ['((proxy.pathsuffix MatchesPath "/orders") or (proxy.pathsuffix MatchesPath "/orders/**"))', under('/orders', true)],
    // One path alone.
    ['proxy.pathsuffix MatchesPath "/orders"', exactly('/orders')],
    ['proxy.pathsuffix = "/orders"', exactly('/orders')],
    ['proxy.pathsuffix == "/orders/"', exactly('/orders')],
    ['proxy.pathsuffix Equals "/orders"', exactly('/orders')],
    ['proxy.pathsuffix equals "/orders"', exactly('/orders')],
    ['proxy.pathsuffix Is "/orders"', exactly('/orders')],
    ['proxy.pathsuffix is "/token"', exactly('/token')],
    ['proxy.pathsuffix = ""', exactly('')],
  ])('%s', (condition, expected) => {
    expect(parsePathCondition(condition)).toEqual(expected);
  });

  it.each<[string, string]>([
    // [why a route cannot express it, the condition]
    ['the verb', 'request.verb = "POST"'],
    ['the verb and a path', 'proxy.pathsuffix MatchesPath "/orders/**" and request.verb = "POST"'],
    ['a header', 'request.header.x-tenant = "acme"'],
    ['a path other than the suffix', 'request.path MatchesPath "/orders/**"'],
    ['one segment wildcard', 'proxy.pathsuffix MatchesPath "/orders/*"'],
    ['a wildcard inside the path', 'proxy.pathsuffix MatchesPath "/orders/**/items"'],
    ['a regular expression', 'proxy.pathsuffix JavaRegex "/orders/[0-9]+"'],
    ['a wildcard match', 'proxy.pathsuffix Matches "/orders*"'],
    ['a pattern with "**" that is not MatchesPath', 'proxy.pathsuffix = "/orders/**"'],
    ['a path that does not start with /', 'proxy.pathsuffix = "orders"'],
    ['a space in the path', 'proxy.pathsuffix = "/my orders"'],
    ['a quote in the path', 'proxy.pathsuffix = "/a\\"b"'],
    ['a negation', '!(proxy.pathsuffix MatchesPath "/orders/**")'],
    ['two paths that are not one prefix', 'proxy.pathsuffix MatchesPath "/a/**" or proxy.pathsuffix MatchesPath "/b/**"'],
    ['a path and another\'s subtree', 'proxy.pathsuffix = "/a" or proxy.pathsuffix MatchesPath "/b/**"'],
    ['two exact paths', 'proxy.pathsuffix = "/a" or proxy.pathsuffix = "/b"'],
    ['three alternatives', 'proxy.pathsuffix = "/a" or proxy.pathsuffix MatchesPath "/a/**" or proxy.pathsuffix = "/b"'],
    ['nothing', ''],
  ])('cannot express %s: undefined, for the report', (_why, condition) => {
    expect(parsePathCondition(condition)).toBeUndefined();
  });
});
