import { expecting, z } from '../../config/zod.js';
import { policyFields } from '../policy.js';

const UNITS = { ps: 1_000, pm: 60_000 } as const;
// Far above what one gateway serves; keeps window numbers exact in float arithmetic.
const MAX_RATE = 100_000;

export interface Rate {
  /** Requests per unit, as written. */
  readonly count: number;
  readonly unit: keyof typeof UNITS;
  readonly unitMs: number;
  readonly text: string;
}

/** `30ps` (per second) or `600pm` (per minute), as the reference gateway writes rates. */
const RATE_EXPECTED = `expected a rate like 30ps or 600pm (1 to ${MAX_RATE} per second or per minute)`;

const rate = z.string({ error: expecting(RATE_EXPECTED) }).transform((text, ctx): Rate => {
  const match = /^([1-9]\d{0,5})(ps|pm)$/.exec(text.trim());
  if (!match || Number(match[1]) > MAX_RATE) {
    ctx.addIssue({ code: 'custom', message: `${RATE_EXPECTED}, got "${text}"` });
    return z.NEVER;
  }
  const unit = match[2] as keyof typeof UNITS;
  const count = Number(match[1]);
  // Windows are whole milliseconds: above one request per ms, each admits count / unitMs, which must be whole.
  if (count > UNITS[unit] && count % UNITS[unit] !== 0) {
    const step = unit === 'ps' ? '1000ps' : '60000pm';
    ctx.addIssue({ code: 'custom', message: `above ${step} (one request per millisecond) a rate must be a whole multiple of ${step}, got "${text}"` });
    return z.NEVER;
  }
  return { count, unit, unitMs: UNITS[unit], text: text.trim() };
});

export const spikeArrestSchema = z
  .strictObject({
    ...policyFields('spike-arrest'),
    rate: rate
      .meta({ 'x-accepts': `a rate like \`30ps\` or \`600pm\`: 1 to ${MAX_RATE} per second (ps) or per minute (pm)` })
      .describe('Smoothed: 600pm lets one request through per 100 ms window, never a burst of 600.'),
    burst: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('Extra requests let through per second (ps) or minute (pm) when they come closer together than the rate allows.'),
    identifier: z
      .enum(['client_id', 'ip', 'user', 'header', 'all'])
      .default('client_id')
      .describe(
        'Whose requests are counted together; a request without one is counted by its client address. ' +
          '`all`: one counter for every caller, the rate protecting the upstream as a whole (Apigee\'s SpikeArrest without <Identifier>).',
      ),
    header: z
      .string()
      .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'expected an HTTP header name')
      .transform((name) => name.toLowerCase())
      .optional()
      .describe('The header whose value identifies the caller, with `identifier: header`.'),
  })
  .superRefine((settings, ctx) => {
    if (settings.identifier === 'header' && settings.header === undefined) {
      ctx.addIssue({ code: 'custom', path: ['header'], message: 'is required with `identifier: header`' });
    }
    if (settings.identifier !== 'header' && settings.header !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['header'], message: 'is only used with `identifier: header`' });
    }
  });

export type SpikeArrestSettings = z.output<typeof spikeArrestSchema>;
