/** What the store's keyspace showed at one look. */
export interface KeyspaceState {
  /** The revocation list's marker is there: some instance wrote the whole list since the node last lost its data. */
  readonly listKept: boolean;
  /** When the marker was written (epoch ms); undefined without one. */
  readonly listKeptSince: number | undefined;
  /** Other instances heard from within the live window that hold the whole revocation list. */
  readonly peersHoldingList: number;
  /** Other live instances that hold a key ring. */
  readonly peersHoldingRing: number;
}

/** What a reconciliation does with the revocation list. */
export type ListVerdict =
  /** Merge the stored list into the mirror. */
  | 'load'
  /** The node lost it: write the mirror back (this instance held the whole list), then load. */
  | 'restore'
  /** Take the stored list as complete (a new environment, or nobody left to restore it) and mark it so. */
  | 'adopt'
  /** Not yet: a running instance is expected to write the list back; stay not ready. */
  | 'wait';

/**
 * The rule for trusting what the store holds. An instance that holds the
 * whole revocation list writes it back whenever the marker beside it is
 * missing. An instance that has never held it (it is starting) trusts a
 * list without marker only when nothing suggests that one was lost: no
 * live instance that holds a list, and no outage seen while starting (an
 * instance started during an outage cannot tell a lost list from an empty
 * one, and its peers may still be reconnecting). Otherwise it waits, not
 * ready: for as long as a live peer holds the list (that peer writes to
 * this store and will write the list back once it sees the loss, which
 * after a node comes back can take longer than any fixed wait), and for
 * `waitMs` once none does. The key ring
 * follows the same rule, with a marker older than this instance as
 * evidence that the environment existed before it (instances started
 * together into a new environment must not wait for each other).
 */
export class Restoration {
  private readonly startedAt = Date.now();
  private held = false;
  private outageWhileStarting = false;
  private looked = false;
  private environmentExisted = false;
  private listWaitSince: number | undefined;
  private ringWaitSince: number | undefined;

  constructor(private readonly waitMs: number) {}

  /** This instance holds the whole list (it loaded or adopted one and keeps it current). */
  get holdsList(): boolean {
    return this.held;
  }

  /** True while starting and waiting for a peer to write the list back. */
  get waiting(): boolean {
    return !this.held && this.listWaitSince !== undefined;
  }

  /** True once a starting instance has had to wait for a peer to write the key ring back. */
  get waitedForRing(): boolean {
    return this.ringWaitSince !== undefined;
  }

  noteOutage(): void {
    if (!this.held) this.outageWhileStarting = true;
  }

  decide(state: KeyspaceState, now: number): ListVerdict {
    this.observe(state);
    if (this.held) return state.listKept ? 'load' : 'restore';
    if (state.listKept) return 'load';
    if (!this.expectRestore(state.peersHoldingList)) return 'adopt';
    this.listWaitSince ??= now;
    // A live peer holding the list writes to this store (its heartbeat says so) and will write the list back: taking
    // the empty list meanwhile would let revoked tokens through. The wait runs out only once no live peer holds one.
    if (state.peersHoldingList > 0) return 'wait';
    return now - this.listWaitSince < this.waitMs ? 'wait' : 'adopt';
  }

  /** The list is in the mirror, complete. */
  loaded(): void {
    this.held = true;
    this.listWaitSince = undefined;
  }

  /** Whether a starting instance may create a key ring in a store that holds none. */
  mayCreateRing(state: KeyspaceState, now: number): boolean {
    this.observe(state);
    if (!this.environmentExisted && !this.expectRestore(state.peersHoldingRing)) return true;
    this.ringWaitSince ??= now;
    return now - this.ringWaitSince >= this.waitMs;
  }

  /** The first look tells whether the environment existed before this instance: a marker written before it started. */
  private observe(state: KeyspaceState): void {
    if (this.looked) return;
    this.looked = true;
    this.environmentExisted = state.listKeptSince !== undefined && state.listKeptSince < this.startedAt;
  }

  private expectRestore(livePeers: number): boolean {
    return livePeers > 0 || this.outageWhileStarting;
  }
}
