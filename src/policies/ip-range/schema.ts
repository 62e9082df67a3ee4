import { z } from '../../config/zod.js';
import { cidrList } from '../../config/fields.js';
import { policyFields } from '../policy.js';

const action = z.enum(['allow', 'deny']);

const rule = z
  .strictObject({
    allow: cidrList.optional().describe('Ranges this rule lets through.'),
    deny: cidrList.optional().describe('Ranges this rule refuses.'),
  })
  .transform((value, ctx) => {
    const [name, ranges] = value.allow ? (['allow', value.allow] as const) : (['deny', value.deny] as const);
    if ((value.allow === undefined) === (value.deny === undefined) || !ranges) {
      ctx.addIssue({ code: 'custom', message: 'each rule is either `allow: <ranges>` or `deny: <ranges>`' });
      return z.NEVER;
    }
    return { action: name, ranges };
  });

export const ipRangeSchema = z.strictObject({
  ...policyFields('ip-range'),
  rules: z.array(rule).min(1).describe('Tried in order; the first rule whose ranges hold the client address decides.'),
  // Required, not defaulted: an allow-list wants `deny`, a block-list `allow`, and guessing wrong is an outage or a hole.
  default: action.describe('What happens to an address no rule matches. Required: guessing would be an outage or a hole.'),
});

export type IpRangeSettings = z.output<typeof ipRangeSchema>;
