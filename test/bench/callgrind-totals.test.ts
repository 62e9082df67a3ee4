import { describe, expect, it } from 'vitest';
// @ts-expect-error: a benchmark script in plain JavaScript, without type declarations
import { callgrindTotals } from '../../bench/instructions.mjs';

describe('callgrindTotals (bench/instructions.mjs)', () => {
  it('reads every event of a dump by the names of its events line', () => {
    const dump = ['# callgrind format', 'version: 1', 'events: Ir Dr Dw', 'fn=(1) main', '0 5 2 1', 'totals: 741500000 12 7', ''].join('\n');
    expect(Object.fromEntries(callgrindTotals(dump))).toEqual({ Ir: 741500000, Dr: 12, Dw: 7 });
  });

  it('falls back to the summary line of a dump without totals', () => {
    expect(callgrindTotals('events: Ir\nsummary: 42\n').get('Ir')).toBe(42);
  });

  it('refuses a file that is not a callgrind dump', () => {
    expect(() => callgrindTotals('hello\n')).toThrow('not a callgrind dump');
  });
});
