import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../src/bounded-memo.js';

/** A memo of `make`, counting how many times `make` ran. */
function counted<V>(make: (key: string) => V, max?: number) {
  const made: string[] = [];
  const memo = new BoundedMemo((key) => {
    made.push(key);
    return make(key);
  }, max);
  return { memo, made };
}

describe('BoundedMemo', () => {
  it('makes a value once per string and hands out the same one after', () => {
    const { memo, made } = counted((key) => ({ key }));
    const first = memo.of('10.0.0.1');
    expect(memo.of('10.0.0.1')).toBe(first);
    expect(memo.of('10.0.0.2')).toEqual({ key: '10.0.0.2' });
    expect(made).toEqual(['10.0.0.1', '10.0.0.2']);
  });

  it('remembers undefined as a value, not as a string it has not seen', () => {
    const { memo, made } = counted(() => undefined);
    expect(memo.of('a')).toBeUndefined();
    expect(memo.of('a')).toBeUndefined();
    expect(made).toEqual(['a']);
  });

  it('starts over past its bound instead of growing, and goes on answering right', () => {
    const { memo, made } = counted((key) => key.toUpperCase(), 3);
    for (const key of ['a', 'b', 'c']) memo.of(key);
    // Full: the fourth string starts the memo over with itself in it.
    expect(memo.of('d')).toBe('D');
    expect(memo.of('d')).toBe('D');
    expect(memo.of('a')).toBe('A');
    expect(made).toEqual(['a', 'b', 'c', 'd', 'a']);
  });
});
