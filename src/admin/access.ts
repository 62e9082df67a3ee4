import { readFile } from 'node:fs/promises';
import { StartupError } from '../config/errors.js';
import type { GatewayConfig } from '../config/schema.js';
import type { Logger } from '../log/logger.js';

export interface AdminAccess {
  /** The admin token (admin.token_file), when one is configured. */
  readonly token: string | undefined;
  /** Whether the admin listener is bound to loopback only. */
  readonly loopback: boolean;
}

/** Who may call the admin API: the token of admin.token_file, or anyone on loopback when there is none. */
export async function adminAccessOf(config: GatewayConfig): Promise<AdminAccess> {
  const { host, token_file } = config.admin;
  const loopback = host === 'localhost' || host === '::1' || host.startsWith('127.');
  if (token_file === undefined) return { token: undefined, loopback };
  const token = await readFile(token_file, 'utf8').then(
    (text) => text.trim(),
    (error: NodeJS.ErrnoException) => {
      throw new StartupError(`admin.token_file: cannot read ${token_file} (${error.code ?? error.message})`);
    },
  );
  if (token.length < 16) throw new StartupError(`admin.token_file: ${token_file} holds ${token.length} characters; an admin token needs at least 16 (openssl rand -base64 32)`);
  return { token, loopback };
}

/**
 * The admin access of a running listener, whose token file is read again on
 * every reload (SIGHUP): rotating the admin token must not need a restart.
 * A file that became unreadable or too short keeps the token in force, as an
 * invalid gateway.yaml keeps the running config. The file's path itself
 * (`admin.*`) is restart-only, like the listener it guards.
 */
export class ReloadableAdminAccess implements AdminAccess {
  private access: AdminAccess;

  private constructor(
    private readonly config: GatewayConfig,
    first: AdminAccess,
  ) {
    this.access = first;
  }

  static async load(config: GatewayConfig): Promise<ReloadableAdminAccess> {
    return new ReloadableAdminAccess(config, await adminAccessOf(config));
  }

  get token(): string | undefined {
    return this.access.token;
  }

  get loopback(): boolean {
    return this.access.loopback;
  }

  async reload(reason: string, logger: Logger): Promise<void> {
    if (this.config.admin.token_file === undefined) return;
    try {
      const next = await adminAccessOf(this.config);
      if (next.token === this.access.token) return;
      this.access = next;
      logger.info({ reason, tokenFile: this.config.admin.token_file }, 'admin token reloaded');
    } catch (error) {
      logger.error({ reason, problem: (error as Error).message }, 'admin token not reloaded; the current one stays');
    }
  }
}
