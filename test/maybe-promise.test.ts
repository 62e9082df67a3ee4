import { describe, expect, it } from 'vitest';
import { whenKnown } from '../src/maybe-promise.js';

describe('whenKnown', () => {
  it('answers a known value at once, without a promise', () => {
    expect(whenKnown(2, (n) => n * 10)).toBe(20);
  });

  it('answers a promise once it resolves, and passes a rejection through', async () => {
    const later = whenKnown(Promise.resolve(3), (n) => n * 10);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(30);
    const failure = new Error('no');
    await expect(whenKnown(Promise.reject(failure), () => 'never')).rejects.toBe(failure);
  });

  it('chains steps: a promise only when one of them answered with one', async () => {
    expect(whenKnown(2, (n) => whenKnown(n + 1, (m) => m * 10))).toBe(30);
    const later = whenKnown(2, (n) => whenKnown(Promise.resolve(n + 1), (m) => m * 10));
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(30);
  });

  it('lets a throw of the callback out synchronously for a known value', () => {
    expect(() =>
      whenKnown('x', () => {
        throw new Error('refused');
      }),
    ).toThrow('refused');
  });

  it('hands its argument to the step, known value or promise', async () => {
    const scaled = (n: number, factor: number) => n * factor;
    expect(whenKnown(2, scaled, 7)).toBe(14);
    expect(await whenKnown(Promise.resolve(3), scaled, 7)).toBe(21);
  });
});
