import { randomBytes } from 'node:crypto';
import { GatewayError } from '../errors/gateway-error.js';
import { loadYamlFile } from '../config/yaml-file.js';
import { accountsSchema, type AccountsFile, type AppAccount, type UserAccount } from './schema.js';
import { hashSecret, verifySecret } from './secret-hash.js';

const ACTIVE = 'active';

/**
 * The developer accounts and applications of accounts.yaml. Credentials are
 * checked before status (SPEC 7: "account in invalid state" only after correct
 * credentials), and an unknown name costs the same hash verification as a
 * known one, so response times do not reveal which accounts exist.
 */
export class AccountRegistry {
  private readonly users: ReadonlyMap<string, UserAccount>;
  private readonly appsById: ReadonlyMap<string, AppAccount>;

  private constructor(accounts: AccountsFile, private readonly decoyHash: string) {
    this.users = new Map(accounts.users.map((user) => [user.username, user]));
    this.appsById = new Map(accounts.apps.map((app) => [app.client_id, app]));
  }

  static async fromAccounts(accounts: AccountsFile): Promise<AccountRegistry> {
    return new AccountRegistry(accounts, await hashSecret(randomBytes(16).toString('hex')));
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
    const matches = await verifySecret(app?.client_secret_hash ?? this.decoyHash, clientSecret);
    if (!app || !matches) {
      throw new GatewayError('INVALID_CLIENT_CREDENTIALS', { detail: app ? 'wrong client secret' : 'unknown client_id', headers: challenge });
    }
    if (app.status !== ACTIVE) throw new GatewayError('CLIENT_ACCOUNT_INVALID_STATE', { detail: `app status ${app.status}` });
    return app;
  }

  async authenticateUser(username: string, password: string): Promise<UserAccount> {
    const user = this.users.get(username);
    const matches = await verifySecret(user?.password_hash ?? this.decoyHash, password);
    if (!user || !matches) {
      throw new GatewayError('INVALID_USER_CREDENTIALS', { detail: user ? 'wrong password' : 'unknown username' });
    }
    assertUserActive(user);
    return user;
  }
}

export function assertUserActive(user: UserAccount): void {
  if (user.status !== ACTIVE) throw new GatewayError('USER_ACCOUNT_INVALID_STATE', { detail: `user status ${user.status}` });
}
