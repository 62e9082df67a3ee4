/**
 * At most one run of a task at a time: callers that arrive while it runs get
 * the same promise, and the next caller after it settles starts a new run.
 * Refresh tokens rotate on every use and a replayed one revokes the whole
 * grant (the gateway README, "Refresh grant"), so two concurrent renewals
 * would not just waste a request: the loser would log the client out.
 */
export class SingleFlight<T> {
  #running: Promise<T> | undefined;

  run(task: () => Promise<T>): Promise<T> {
    this.#running ??= task().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Resolves once the run in progress, if any, has settled, whatever its outcome. */
  async settled(): Promise<void> {
    await this.#running?.catch(() => undefined);
  }
}
