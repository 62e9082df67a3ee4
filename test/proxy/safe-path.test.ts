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
  it('decodes once and refuses what an upstream could resolve differently', () => {
    expect(outcome('/business/score/v2/directors')).toBe('/business/score/v2/directors');
    expect(outcome('/a%20b/c')).toBe('/a b/c');
    expect(outcome('/a/../b')).toBe('refused: dot segment in path');
    expect(outcome('/a/.')).toBe('refused: dot segment in path');
    expect(outcome('/a/..;x/b')).toBe('refused: dot segment in path');
    expect(outcome('/a/%2e%2e/b')).toBe('refused: dot segment in path');
    expect(outcome('/a%2fb')).toBe('refused: encoded separator in path');
    expect(outcome('/a\\b')).toBe('refused: encoded separator in path');
    expect(outcome('/a%252e')).toBe('refused: double-encoded path');
    expect(outcome('/a%zz')).toBe('refused: invalid percent-encoding in path');
    expect(outcome('/a/...')).toBe('/a/...');
    expect(outcome('/a/.b/c.')).toBe('/a/.b/c.');
  });

  it('takes a path with nothing to decode as it is, refusing exactly its dot segments', () => {
    const path = fc.array(fc.constantFrom('a', '.', '/', '-', '..', 'v2'), { maxLength: 12 }).map((parts) => `/${parts.join('')}`);
    fc.assert(
      fc.property(path, (candidate) => {
        const hasDotSegment = candidate.split('/').some((segment) => segment === '.' || segment === '..');
        expect(outcome(candidate)).toBe(hasDotSegment ? 'refused: dot segment in path' : candidate);
      }),
      { numRuns: 2_000 },
    );
  });
});
