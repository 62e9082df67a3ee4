import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routingPathOf } from '../../src/proxy/safe-path.js';

const outcome = (path: string) => {
  try {
    return routingPathOf(path);
  } catch (error) {
    return `refused: ${(error as { detail?: string }).detail}`;
  }
};

describe('routingPathOf', () => {
  it.each([
    ['/business/score/v2/directors', '/business/score/v2/directors'],
    ['/business/score/v2/', '/business/score/v2/'],
    ['/', '/'],
    ['/a%20b/c', '/a b/c'],
    ['/a/...', '/a/...'],
    ['/a/.b/c.', '/a/.b/c.'],
    ['/a/../b', 'refused: dot segment in path'],
    ['/a/.', 'refused: dot segment in path'],
    ['/a/..;x/b', 'refused: dot segment in path'],
    ['/a/%2e%2e/b', 'refused: dot segment in path'],
    ['/a%2fb', 'refused: encoded separator in path'],
    ['/a\\b', 'refused: encoded separator in path'],
    ['/a%252e', 'refused: double-encoded path'],
    ['/a%zz', 'refused: invalid percent-encoding in path'],
    // Merged by nginx and many frameworks: `/v2//admin/x` is `/v2/admin/x` to them.
    ['/business/score/v2//admin/x', 'refused: empty segment in path'],
    ['//business/score/v2/', 'refused: empty segment in path'],
    ['/business/score/v2//', 'refused: empty segment in path'],
    // Stripped by Tomcat and Spring: `/admin;x/` is `/admin/` to them.
    ['/business/score/v2/admin;/x', 'refused: parameter (;) in path segment'],
    ['/business/score/v2/admin;jsessionid=1/x', 'refused: parameter (;) in path segment'],
    ['/business/score/v2/admin%3B/x', 'refused: parameter (;) in path segment'],
    ['/business/score/v2/directors;v=1', 'refused: parameter (;) in path segment'],
    // Ends the path for an upstream that parses the request target as a URL.
    ['/business/score/v2/admin#/x', 'refused: fragment in path'],
  ])('%s -> %s', (path, expected) => {
    expect(outcome(path)).toBe(expected);
  });

  it('takes a path with nothing to decode as it is, refusing exactly its dot and empty segments', () => {
    const path = fc.array(fc.constantFrom('a', '.', '/', '-', '..', 'v2'), { maxLength: 12 }).map((parts) => `/${parts.join('')}`);
    fc.assert(
      fc.property(path, (candidate) => {
        const segments = candidate.split('/');
        const hasEmptySegment = segments.slice(1, -1).some((segment) => segment === '');
        const hasDotSegment = segments.some((segment) => segment === '.' || segment === '..');
        const expected = hasEmptySegment ? 'refused: empty segment in path' : hasDotSegment ? 'refused: dot segment in path' : candidate;
        expect(outcome(candidate)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});
