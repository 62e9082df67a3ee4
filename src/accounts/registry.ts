import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../errors/gateway-error.js';
import { loadYamlFile } from '../config/yaml-file.js';
import { accountsSchema, type AccountsFile, type AppAccount, type UserAccount } from './schema.js';
import { hashSecret, verifySecret } from './secret-hash.js';

const ACTIVE = 'active';

/** argon2 verification; replaced in tests to count how often it runs. */
export type SecretVerifier = (phcHash: string, secret: string) => Promise<boolean>;

/**
 * The developer accounts and applications of accounts.yaml. Credentials are
 * checked before status (SPEC 7: "account in invalid state" only after correct
 * credentials), and an unknown name costs the same hash verification as a
 * known one, so response times do not reveal which accounts exist.
 */
export class AccountRegistry {
  private readonly users: ReadonlyMap<string, UserAccount>;
  private readonly appsById: ReadonlyMap<string, AppAccount>;
  private readonly verifiedSecrets = new VerifiedSecrets();

  private constructor(
    accounts: AccountsFile,
    private readonly decoyHash: string,
    private readonly verify: SecretVerifier,
  ) {
    this.users = new Map(accounts.users.map((user) => [user.username, user]));
    this.appsById = new Map(accounts.apps.map((app) => [app.client_id, app]));
  }

  static async fromAccounts(accounts: AccountsFile, verify: SecretVerifier = verifySecret): Promise<AccountRegistry> {
    return new AccountRegistry(accounts, await hashSecret(randomBytes(16).toString('hex')), verify);
  }

  static async load(file: string): Promise<AccountRegistry> {
    return AccountRegistry.fromAccounts(await loadYamlFile(file, accountsSchema));
  }

  get counts(): { users: number; apps: number } {
    return { users: this.users.size, apps: this.appsById.size };
  }

  /** Every application, for the policies they name. */
  get apps(): readonly AppAccount[] {
    return [...this.appsById.values()];
  }

  findUser(username: string): UserAccount | undefined {
    return this.users.get(username);
  }

  findApp(clientId: string): AppAccount | undefined {
    return this.appsById.get(clientId);
  }

  async authenticateApp(clientId: string, clientSecret: string, challenge?: Record<string, string>): Promise<AppAccount> {
    const app = this.appsById.get(clientId);
    const remembered = app !== undefined && this.verifiedSecrets.has(clientId, clientSecret);
    const matches = remembered || (await this.verify(app?.client_secret_hash ?? this.decoyHash, clientSecret));
    if (app && matches && !remembered) this.verifiedSecrets.remember(clientId, clientSecret);
    if (!app || !matches) {
      throw new GatewayError('INVALID_CLIENT_CREDENTIALS', { detail: app ? 'wrong client secret' : 'unknown client_id', headers: challenge });
    }
    if (!isActive(app)) throw new GatewayError('CLIENT_ACCOUNT_INVALID_STATE', { detail: `app status ${app.status}` });
    return app;
  }

  async authenticateUser(username: string, password: string): Promise<UserAccount> {
    const user = this.users.get(username);
    const matches = await this.verify(user?.password_hash ?? this.decoyHash, password);
    if (!user || !matches) {
      throw new GatewayError('INVALID_USER_CREDENTIALS', { detail: user ? 'wrong password' : 'unknown username' });
    }
    assertUserActive(user);
    return user;
  }
}

/**
 * Client secrets already verified, so that an app refreshing thousands of
 * tokens a second does not pay ~15 ms of argon2 each time (SPEC 4.4 sends
 * the secret with every refresh). Only successes are remembered, so every
 * wrong guess still costs a full verification; a new registry (accounts
 * reloaded, secret changed) starts empty.
 *
 * What is kept is an HMAC of the secret under a key that lives only in this
 * process, never the secret. Someone able to read the process's memory could
 * test guesses against it at HMAC speed, which is why app secrets are
 * random with at least 128 bits (docs/configuration.md, accounts.yaml);
 * user passwords, chosen by people, are never cached.
 */
class VerifiedSecrets {
  private readonly key = randomBytes(32);
  private readonly digests = new Map<string, Buffer>();

  has(clientId: string, secret: string): boolean {
    const known = this.digests.get(clientId);
    return known !== undefined && timingSafeEqual(known, this.digest(secret));
  }

  /** One entry per app: bounded by accounts.yaml. */
  remember(clientId: string, secret: string): void {
    this.digests.set(clientId, this.digest(secret));
  }

  private digest(secret: string): Buffer {
    return createHmac('sha256', this.key).update(secret).digest();
  }
}

/** SPEC 5.9: only `active` authenticates; anything else is the operator's word for not now. */
export const isActive = (account: UserAccount | AppAccount): boolean => account.status === ACTIVE;

export function assertUserActive(user: UserAccount): void {
  const refusal = inactiveUserRefusal(user);
  if (refusal) throw refusal;
}

/** The refusal of a user who is not active, for a caller that decides when to throw it; undefined for an active one. */
export function inactiveUserRefusal(user: UserAccount): GatewayError | undefined {
  return isActive(user) ? undefined : new GatewayError('USER_ACCOUNT_INVALID_STATE', { detail: `user status ${user.status}` });
}
