/**
 * Values worked out from a string and remembered by it, for the hot path's
 * answers that depend on one string alone and repeat from one request to the
 * next: a peer address's canonical form, ip-range's verdict for an address,
 * spike arrest's counter key for a caller. Bounded: past `max` strings the
 * memo starts over instead of growing, so a flood of distinct values (spoofed
 * addresses, client-chosen headers) costs at most `max` entries, and the
 * strings in use come back at once. Starting over, not evicting one by one:
 * a Map keeps no order of use, and a memo this size is refilled in a moment.
 */
export class BoundedMemo<V> {
  private readonly values = new Map<string, V>();

  // 10,000: the bound each of these memos had before they shared this class. Their keys are addresses and ids of at
  // most 64 characters (spike arrest does not remember longer ones), so a full memo holds about a megabyte at most.
  constructor(
    private readonly make: (key: string) => V,
    private readonly max = 10_000,
  ) {}

  /** The remembered value for `key`, made and remembered now if there is none. */
  of(key: string): V {
    const known = this.values.get(key);
    // One lookup for a remembered value; a value of undefined is told from an absent one by a second.
    if (known !== undefined || this.values.has(key)) return known as V;
    const value = this.make(key);
    if (this.values.size >= this.max) this.values.clear();
    this.values.set(key, value);
    return value;
  }
}
