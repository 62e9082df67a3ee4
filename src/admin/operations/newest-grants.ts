import type { GrantSummary } from '../../store/types.js';

/**
 * The `limit` most recent grants (by login time) of a listing too large to
 * hold whole: a min-heap whose root is the oldest kept, so each offer costs
 * O(log limit) and memory stays at `limit` entries however many are offered.
 */
export class NewestGrants {
  private readonly heap: GrantSummary[] = [];

  constructor(private readonly limit: number) {}

  offer(grant: GrantSummary): void {
    const { heap } = this;
    if (heap.length < this.limit) {
      heap.push(grant);
      this.siftUp(heap.length - 1);
    } else if (heap[0] && grant.issuedAt > heap[0].issuedAt) {
      heap[0] = grant;
      this.siftDown(0);
    }
  }

  /** Newest first. */
  sorted(): GrantSummary[] {
    return [...this.heap].sort((a, b) => b.issuedAt - a.issuedAt);
  }

  private siftUp(index: number): void {
    let child = index;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.older(child, parent)) return;
      this.swap(child, parent);
      child = parent;
    }
  }

  private siftDown(index: number): void {
    let parent = index;
    for (;;) {
      const [left, right] = [2 * parent + 1, 2 * parent + 2];
      let oldest = parent;
      if (left < this.heap.length && this.older(left, oldest)) oldest = left;
      if (right < this.heap.length && this.older(right, oldest)) oldest = right;
      if (oldest === parent) return;
      this.swap(parent, oldest);
      parent = oldest;
    }
  }

  private older(a: number, b: number): boolean {
    return this.heap[a]!.issuedAt < this.heap[b]!.issuedAt;
  }

  private swap(a: number, b: number): void {
    [this.heap[a], this.heap[b]] = [this.heap[b]!, this.heap[a]!];
  }
}
