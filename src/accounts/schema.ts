import { z } from 'zod';
import { policyNames } from '../config/schema.js';
import { PHC_ARGON2 } from './secret-hash.js';

const phcHash = z
  .string()
  .regex(PHC_ARGON2, 'expected an argon2id PHC string from `token-gateway hash-secret` (plain text is never accepted)');

// Any status other than `active` refuses authentication (SPEC 5.9); the value
// itself is the operator's vocabulary (suspended, locked, ...).
const status = z.string().min(1).describe('Only "active" authenticates.');

const user = z.strictObject({
  username: z.string().min(1),
  password_hash: phcHash,
  status,
});

const app = z.strictObject({
  client_id: z.string().min(1),
  client_secret_hash: phcHash,
  status,
  policies: policyNames.describe("Run once the client is known (after the route's policies), e.g. its own IP range or hours."),
});

const uniqueBy = <T>(items: readonly T[], key: (item: T) => string, ctx: z.RefinementCtx, field: string, name: string) => {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    const value = key(item);
    if (seen.has(value)) ctx.addIssue({ code: 'custom', path: [field, index, name], message: `"${value}" is listed twice` });
    seen.add(value);
  });
};

export const accountsSchema = z
  .strictObject({
    users: z.array(user).default([]),
    apps: z.array(app).default([]),
  })
  .superRefine((accounts, ctx) => {
    uniqueBy(accounts.users, (u) => u.username, ctx, 'users', 'username');
    uniqueBy(accounts.apps, (a) => a.client_id, ctx, 'apps', 'client_id');
  });

export type AccountsFile = z.output<typeof accountsSchema>;
export type UserAccount = AccountsFile['users'][number];
export type AppAccount = AccountsFile['apps'][number];
