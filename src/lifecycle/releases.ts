/**
 * What a start has built so far, to be released, the last first, if the
 * start fails half-way: nothing of a failed gateway may live on (a policies
 * folder still watched, a listener bound, a forwarder's pools open).
 */
export class Releases {
  private readonly steps: Array<() => unknown> = [];

  add(...steps: Array<() => unknown>): void {
    this.steps.push(...steps);
  }

  /** Runs every release, the last added first, then rethrows the failure that stopped the start. */
  async failStart(error: unknown): Promise<never> {
    for (const release of this.steps.reverse()) await release();
    throw error;
  }
}
