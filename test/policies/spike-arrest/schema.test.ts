import { describe, expect, it } from 'vitest';
import { spikeArrestSchema } from '../../../src/policies/spike-arrest/schema.js';

const parse = (rate: string) => spikeArrestSchema.safeParse({ name: 'p', kind: 'spike-arrest', rate });

describe('spike-arrest rates', () => {
  it.each(['1ps', '30ps', '1000ps', '2000ps', '100000ps', '600pm', '60000pm'])('accepts %s', (rate) => {
    expect(parse(rate).success).toBe(true);
  });

  it.each([
    ['1500ps', 'above 1000ps (one request per millisecond) a rate must be a whole multiple of 1000ps, got "1500ps"'],
    ['90000pm', 'above 60000pm (one request per millisecond) a rate must be a whole multiple of 60000pm, got "90000pm"'],
    ['100001ps', 'expected a rate like 30ps or 600pm'],
    ['0ps', 'expected a rate like 30ps or 600pm'],
  ])('refuses %s, saying why', (rate, message) => {
    const result = parse(rate);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain(message);
  });
});

describe('spike-arrest rate: missing or of the wrong type', () => {
  it('says a missing rate is required, with what it expects, never "got undefined"', () => {
    const result = spikeArrestSchema.safeParse({ name: 'p', kind: 'spike-arrest' });
    expect(result.error?.issues[0]?.message).toBe('required: expected a rate like 30ps or 600pm (1 to 100000 per second or per minute)');
  });

  it('names the kind of a wrongly typed rate', () => {
    const result = spikeArrestSchema.safeParse({ name: 'p', kind: 'spike-arrest', rate: 30 });
    expect(result.error?.issues[0]?.message).toBe('expected a rate like 30ps or 600pm (1 to 100000 per second or per minute), got 30');
  });
});
