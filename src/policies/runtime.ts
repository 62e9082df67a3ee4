import { watch, type FSWatcher } from 'node:fs';
import type { AppAccount } from '../accounts/schema.js';
import type { Clock } from '../clock.js';
import { ConfigError, formatIssue } from '../config/errors.js';
import type { GatewayConfig } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import type { RateLimiterSettings, Store, WindowCounter } from '../store/types.js';
import { attachmentsOf } from './attachments.js';
import { uncounted, type FiguresOf } from './figures.js';
import type { CompileDeps } from './policy.js';
import { readPolicyFolder } from './policy-file.js';
import { PolicySet } from './policy-set.js';

export interface PolicyRuntimeOptions {
  readonly config: GatewayConfig;
  readonly apps: readonly AppAccount[];
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Watch the folder and reload on change (SIGHUP is wired by `serve`). */
  readonly watch: boolean;
  /** Each policy's counts by name and kind, kept across reloads (the gateway's metrics); none by default. */
  readonly figures?: FiguresOf;
}

export type ReloadOutcome = { readonly ok: true; readonly policies: number } | { readonly ok: false; readonly issues: readonly string[] };

/** Editors write a file in several steps (truncate, write, rename): one reload after they settle. */
const SETTLE_MS = 100;
const FILES_CHANGED = 'policy files changed';

/**
 * The policies in force. `current` is one immutable PolicySet; a reload reads
 * and validates the whole folder, builds a new set and swaps it in at once, or
 * keeps the last good set and logs why. Spike-arrest counters are kept here
 * across reloads, so an edit does not reset them.
 */
export class PolicyRuntime {
  private set: PolicySet = PolicySet.empty;
  private readonly counters = new Map<string, WindowCounter>();
  private watcher?: FSWatcher;
  private settle?: NodeJS.Timeout;
  private running?: Promise<ReloadOutcome>;
  private again = false;
  private closed = false;

  /** Replaced whole when the gateway reloads its config and accounts. */
  private constructor(private options: PolicyRuntimeOptions) {}

  /** Loads the folder once; invalid policies stop the start (ConfigError). */
  static async start(options: PolicyRuntimeOptions): Promise<PolicyRuntime> {
    const runtime = new PolicyRuntime(options);
    runtime.set = await runtime.build();
    if (options.watch) runtime.startWatching();
    return runtime;
  }

  get current(): PolicySet {
    return this.set;
  }

  /** Reloads now; a reload asked for while one runs is done once more after it, so the last edit always wins. */
  reload(reason: string): Promise<ReloadOutcome> {
    if (this.running) {
      this.again = true;
      return this.running.then(() => this.running ?? this.reload(reason));
    }
    this.running = this.rebuild(reason).finally(() => this.settled(reason));
    return this.running;
  }

  /**
   * Builds the set that a reloaded gateway.yaml and accounts.yaml would have
   * and, if it is valid, swaps it in and calls `commit` in the same tick, so
   * that the gateway's new config and the set that matches it arrive
   * together. Waits for a folder reload under way: the two never interleave.
   * Nothing is logged on failure; the caller reports the issues.
   */
  async reconfigure(config: GatewayConfig, apps: readonly AppAccount[], reason: string, commit: () => void): Promise<ReloadOutcome> {
    while (this.running) await this.running;
    this.running = this.rebuild(reason, { config, apps }, commit).finally(() => this.settled(reason));
    return this.running;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.settle);
    this.watcher?.close();
  }

  private settled(reason: string): void {
    this.running = undefined;
    if (this.again && !this.closed) {
      this.again = false;
      void this.reload(reason);
    }
  }

  /** One build and swap: of the folder alone, or with a new config and apps. */
  private async rebuild(reason: string, next?: Pick<PolicyRuntimeOptions, 'config' | 'apps'>, commit?: () => void): Promise<ReloadOutcome> {
    const { logger } = this.options;
    const target = { ...this.options, ...next };
    try {
      const set = await this.build(target);
      if (this.closed) return { ok: true, policies: set.policies.size };
      const moved = target.config.policies.folder !== this.options.config.policies.folder;
      // The caller's half first: if it throws, neither half has changed.
      commit?.();
      this.options = target;
      this.set = set;
      // A folder replaced whole (rm -rf and recreate) leaves the old watch on a dead inode without an error:
      // a reload asked for from outside (SIGHUP) watches the folder afresh, as does a folder that moved.
      if (reason !== FILES_CHANGED || moved) this.stopWatching();
      this.startWatching();
      logger.info({ reason, folder: target.config.policies.folder, policies: [...set.policies.keys()] }, 'policies reloaded');
      return { ok: true, policies: set.policies.size };
    } catch (error) {
      const issues = error instanceof ConfigError ? error.issues.map(formatIssue) : [String(error)];
      if (next) return { ok: false, issues };
      if (error instanceof ConfigError) logger.error({ reason, issues }, 'policy reload rejected; the previous policies stay in force');
      else logger.error({ err: error, reason }, 'policy reload failed; the previous policies stay in force');
      return { ok: false, issues };
    }
  }

  private async build({ config, apps }: Pick<PolicyRuntimeOptions, 'config' | 'apps'> = this.options): Promise<PolicySet> {
    const used = new Set<string>();
    const definitions = await readPolicyFolder(config.policies.folder);
    const set = await PolicySet.build(definitions, attachmentsOf(config, apps), this.compileDeps(used), this.options.figures ?? uncounted);
    // Counters of policies that are gone (or whose rate changed) are dropped with the set that used them.
    for (const key of this.counters.keys()) if (!used.has(key)) this.counters.delete(key);
    return set;
  }

  private compileDeps(used: Set<string>): CompileDeps {
    const { store, clock } = this.options;
    return {
      clock,
      windowCounter: (settings: RateLimiterSettings) => {
        const key = `${settings.name}|${settings.points}|${settings.durationSeconds}`;
        used.add(key);
        let counter = this.counters.get(key);
        if (!counter) {
          counter = store.createWindowCounter(settings);
          this.counters.set(key, counter);
        }
        return counter;
      },
    };
  }

  /** Watches the folder if it exists and is not watched yet (a folder created later is picked up on SIGHUP). */
  private startWatching(): void {
    if (!this.options.watch || this.watcher || this.closed) return;
    const { folder } = this.options.config.policies;
    try {
      this.watcher = watch(folder, { persistent: false }, () => {
        clearTimeout(this.settle);
        this.settle = setTimeout(() => void this.reload(FILES_CHANGED), SETTLE_MS);
      });
    } catch (error) {
      this.options.logger.warn({ folder, code: (error as NodeJS.ErrnoException).code }, 'policies folder not watched; send SIGHUP after creating it');
      return;
    }
    this.watcher.on('error', (error) => {
      this.options.logger.warn({ folder, err: error }, 'policies folder watch stopped; send SIGHUP to reload and watch again');
      this.stopWatching();
    });
  }

  private stopWatching(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }
}
