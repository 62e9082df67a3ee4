import { describe, expect, it } from 'vitest';
import { parseDuration, parseSize } from '../../src/config/units.js';

describe('durations', () => {
  it.each([
    ['500ms', 500],
    ['2s', 2_000],
    ['30m', 1_800_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
  ])('reads %s as %i ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', '30', 'm', '1.5h', '-1s', '30 minutes', '1h30m'])('refuses %j', (text) => expect(parseDuration(text)).toBeUndefined());
});

describe('sizes', () => {
  it.each([
    ['512b', 512],
    ['16kb', 16_384],
    ['1MB', 1_048_576],
  ])('reads %s as %i bytes', (text, bytes) => expect(parseSize(text)).toBe(bytes));

  it.each(['', '1gb', '1.5mb', 'kb'])('refuses %j', (text) => expect(parseSize(text)).toBeUndefined());
});
