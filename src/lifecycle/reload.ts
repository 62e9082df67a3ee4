import { readFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import { AccountRegistry } from '../accounts/registry.js';
import { accountsSchema, type AccountsFile } from '../accounts/schema.js';
import { ConfigError, formatIssue } from '../config/errors.js';
import { loadGatewayConfig, type ConfigOverrides } from '../config/load.js';
import type { GatewayConfig } from '../config/schema.js';
import { loadYamlFile } from '../config/yaml-file.js';
import type { Logger } from '../log/logger.js';
import type { PolicyRuntime } from '../policies/runtime.js';
import { watchFiles, type FileWatch } from '../config/file-watch.js';
import type { Generations } from './generation.js';
import { planReload } from './reload-plan.js';

export type GatewayReloadOutcome =
  | { readonly ok: true; readonly changed: readonly string[]; readonly needsRestart: readonly string[] }
  | { readonly ok: false; readonly issues: readonly string[] };

export interface ConfigReloaderOptions {
  readonly generations: Generations;
  readonly policies: PolicyRuntime;
  readonly logger: Logger;
  /** What `serve` overrode on its command line (`--port`), applied to every reload as at start. */
  readonly overrides: ConfigOverrides;
  /** accounts.yaml as it was read at start; undefined when the accounts were handed in. */
  readonly accounts: AccountsFile | undefined;
  /** Watch gateway.yaml and accounts.yaml (SIGHUP is wired by `serve`). */
  readonly watch: boolean;
  /** Applies what lives outside the context: server timeouts, the log level. Called in the tick of the swap. */
  readonly applied: (config: GatewayConfig) => void;
}

const FILES_CHANGED = 'files changed';

/**
 * Reloads gateway.yaml and accounts.yaml, on SIGHUP and when either file
 * changes. Both files are read and validated, and the policy set rebuilt
 * against them, before anything is swapped: an invalid file leaves everything
 * running as it is and logs one error per problem, in the words of
 * `token-gateway check`. Keys that only a restart can apply keep their
 * running value, with a warning naming each (RELOAD_RULES).
 */
export class ConfigReloader {
  private accounts: AccountsFile | undefined;
  private readonly watch?: FileWatch;
  private running?: Promise<GatewayReloadOutcome>;
  /** The reason of a reload asked for while another ran. */
  private again?: string;
  private closed = false;

  constructor(private readonly options: ConfigReloaderOptions) {
    this.accounts = options.accounts;
    const { config } = options.generations.current;
    if (options.watch) this.watch = watchFiles([config.source, config.accounts], () => void this.reload(FILES_CHANGED), options.logger, 'config folder');
  }

  /**
   * Reloads now. A reload asked for while one runs is done once more after
   * it (under the latest reason), so the last edit always wins; every caller
   * meanwhile gets that later outcome.
   */
  reload(reason: string): Promise<GatewayReloadOutcome> {
    if (this.running) {
      this.again = reason;
      return this.running.then(() => this.running ?? this.reload(reason));
    }
    this.running = this.reloadOnce(reason)
      // Nothing may escape a reload started by a watcher: an unexpected failure is refused like an invalid file.
      .catch((error: unknown) => this.rejected(reason, [String(error)]))
      .finally(() => {
        this.running = undefined;
        const again = this.again;
        this.again = undefined;
        if (again !== undefined && !this.closed) void this.reload(again);
      });
    return this.running;
  }

  close(): void {
    this.closed = true;
    this.watch?.close();
  }

  private async reloadOnce(reason: string): Promise<GatewayReloadOutcome> {
    const { generations, policies, logger } = this.options;
    const running = generations.current;
    const read = await this.readBoth(running.config);
    if ('issues' in read) return this.rejected(reason, read.issues);
    if (this.closed) return { ok: false, issues: ['the gateway is shutting down'] };

    const plan = planReload(running.config, read.config);
    const accountsChanged = !isDeepStrictEqual(this.accounts, read.accounts);
    // Unchanged accounts keep their registry, and with it the remembered client secrets.
    const registry = accountsChanged ? await AccountRegistry.fromAccounts(read.accounts) : running.accounts;
    const outcome = await policies.reconfigure(plan.config, registry.apps, reason, () => {
      generations.replace(plan.config, registry);
      this.options.applied(plan.config);
    });
    if (!outcome.ok) return this.rejected(reason, outcome.issues);

    for (const key of plan.needsRestart) logger.warn({ reason, key }, `${key} needs a restart; the running value stays`);
    const accountChanges = accountsChanged ? describeAccountChanges(this.accounts, read.accounts) : undefined;
    this.accounts = read.accounts;
    const changed = [...plan.changed, ...(accountsChanged ? ['accounts.yaml'] : [])];
    logger.info(
      {
        reason,
        changed,
        needsRestart: plan.needsRestart,
        routes: plan.config.routes.length,
        policies: outcome.policies,
        ...registry.counts,
        ...accountChanges,
      },
      'configuration reloaded',
    );
    return { ok: true, changed, needsRestart: plan.needsRestart };
  }

  /** Both files, validated; every problem of both, so that one reload reports everything to fix. */
  private async readBoth(running: GatewayConfig): Promise<{ config: GatewayConfig; accounts: AccountsFile } | { issues: string[] }> {
    const [config, accounts] = await Promise.allSettled([
      notEmpty(running.source).then(() => loadGatewayConfig(running.source, this.options.overrides)),
      // The path is restart-only: the file the gateway started with is the one re-read.
      notEmpty(running.accounts).then(() => loadYamlFile(running.accounts, accountsSchema)),
    ]);
    if (config.status === 'fulfilled' && accounts.status === 'fulfilled') return { config: config.value, accounts: accounts.value };
    return { issues: [config, accounts].flatMap((result) => (result.status === 'rejected' ? issuesOf(result.reason) : [])) };
  }

  private rejected(reason: string, issues: readonly string[]): GatewayReloadOutcome {
    for (const issue of issues) this.options.logger.error({ reason, issue }, 'configuration reload rejected; the running configuration stays');
    return { ok: false, issues };
  }
}

/**
 * An empty file is valid YAML with every default, which for a running
 * gateway means no routes or no accounts at all: far more likely an editor
 * caught between truncating and writing than an intent. Refused on reload
 * (a restart with an empty file still starts on the defaults).
 */
async function notEmpty(file: string): Promise<void> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text !== undefined && text.trim() === '') {
    throw new ConfigError([{ file, key: '', message: 'the file is empty (a write still in progress?); restart to run on the defaults' }]);
  }
}

const issuesOf = (error: unknown): string[] => (error instanceof ConfigError ? error.issues.map(formatIssue) : [String(error)]);

interface Changes {
  added: number;
  removed: number;
  changed: number;
}

/** How many users and apps came, went or changed: counts only, never a name or a hash. */
function describeAccountChanges(before: AccountsFile | undefined, after: AccountsFile): { usersChanged: Changes; appsChanged: Changes } {
  return {
    usersChanged: countChanges(before?.users ?? [], after.users, (user) => user.username),
    appsChanged: countChanges(before?.apps ?? [], after.apps, (app) => app.client_id),
  };
}

function countChanges<T>(before: readonly T[], after: readonly T[], nameOf: (item: T) => string): Changes {
  const old = new Map(before.map((item) => [nameOf(item), item]));
  const names = new Set(after.map(nameOf));
  let added = 0;
  let changed = 0;
  for (const item of after) {
    const previous = old.get(nameOf(item));
    if (previous === undefined) added++;
    else if (!isDeepStrictEqual(previous, item)) changed++;
  }
  const removed = [...old.keys()].filter((name) => !names.has(name)).length;
  return { added, removed, changed };
}
