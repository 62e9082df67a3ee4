import { z } from '../config/zod.js';
import { policyNames } from '../config/schema.js';
import { PHC_ARGON2 } from './secret-hash.js';

const phcHash = z
  .string()
  .regex(PHC_ARGON2, 'expected an argon2id PHC string from `token-gateway hash-secret` (plain text is never accepted)')
  .meta({ 'x-accepts': 'argon2 PHC string: argon2id, as `hash-secret` makes; argon2i and argon2d hashes made elsewhere are accepted too' });

// Any status other than `active` refuses authentication (SPEC 5.9); the value
// itself is the operator's vocabulary (suspended, locked, ...).
const status = z
  .string()
  .min(1)
  .describe('Only `active` authenticates; anything else (suspended, locked, ...) answers "Your account is in invalid state" once the credentials are right.');

const user = z.strictObject({
  username: z.string().min(1).describe('The developer login name; unique.'),
  password_hash: phcHash.describe('The hash of the password, from `token-gateway hash-secret`; plain text is refused.'),
  status,
});

const app = z.strictObject({
  client_id: z.string().min(1).describe("The application's public identifier; unique."),
  client_secret_hash: phcHash.describe('The hash of the client secret, from `token-gateway hash-secret`; plain text is refused.'),
  status,
  policies: policyNames.describe("Run once the client is known (after the route's policies), e.g. its own IP range or hours."),
  form_encoded: z
    .boolean()
    .optional()
    .describe(
      "Whether this app may also use RFC 6749 / RFC 7009 form-encoded requests on the token and revocation endpoints: true allows them, false keeps it to the spec's JSON and header format. Absent: gateway.yaml's oauth.form_encoded holds.",
    ),
  introspect: z
    .enum(['own', 'any'])
    .optional()
    // Absent means own (introspection.ts compares with 'any'); the table says so rather than "none".
    .meta({ 'x-default': '`own`' })
    .describe(
      "Which tokens this app learns about from the introspection endpoint (RFC 7662): own (the default) answers details only for tokens issued to this app, and active: false for every other; any makes it a resource server that may introspect the access tokens of every client (never their refresh tokens).",
    ),
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
    users: z.array(user).default([]).describe('Developer accounts: username and password.'),
    apps: z.array(app).default([]).describe('Applications: client_id and client_secret.'),
  })
  .superRefine((accounts, ctx) => {
    uniqueBy(accounts.users, (u) => u.username, ctx, 'users', 'username');
    uniqueBy(accounts.apps, (a) => a.client_id, ctx, 'apps', 'client_id');
  });

export type AccountsFile = z.output<typeof accountsSchema>;
export type UserAccount = AccountsFile['users'][number];
export type AppAccount = AccountsFile['apps'][number];
