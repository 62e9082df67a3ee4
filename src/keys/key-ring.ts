import type { JWK, JWSHeaderParameters } from 'jose';
import type { Clock } from '../clock.js';
import { generateSigningKey, type SigningAlgorithm, type SigningKey } from './signing-key.js';

export interface KeyRingOptions {
  algorithm: SigningAlgorithm;
  /** How long each key signs before the next takes over. */
  rotationIntervalMs: number;
  /** How long a retired key stays published: the longest a token it signed can still be accepted. */
  retentionMs: number;
  clock: Clock;
}

interface RetiredKey {
  readonly key: SigningKey;
  readonly publishedUntil: number;
}

/**
 * The ordered set of keys: exactly one signs, the next one is already
 * published (so verifiers that cache the JWKS know it before it signs
 * anything), and retired keys stay published until every token they signed
 * has expired. All transitions happen in `maintain`, driven by the clock.
 */
export class KeyRing {
  private current: SigningKey;
  private next: SigningKey;
  private retired: RetiredKey[] = [];
  private view: { keys: JWK[] } = { keys: [] };
  private viewJson = '';
  private byKid = new Map<string, SigningKey>();

  private constructor(private readonly options: KeyRingOptions, current: SigningKey, next: SigningKey) {
    this.current = current;
    this.next = next;
    this.rebuildView();
  }

  static async create(options: KeyRingOptions): Promise<KeyRing> {
    const now = options.clock.now();
    const [current, next] = await Promise.all([
      generateSigningKey(options.algorithm, now),
      generateSigningKey(options.algorithm, now + options.rotationIntervalMs),
    ]);
    return new KeyRing(options, current, next);
  }

  get algorithm(): SigningAlgorithm {
    return this.options.algorithm;
  }

  /** The one key that signs now. */
  selectSigningKey(): SigningKey {
    return this.current;
  }

  /**
   * The key for a token header: exactly one published key with that kid and
   * the ring's algorithm, or none. A header without a kid matches nothing.
   */
  selectVerificationKey(header: JWSHeaderParameters): SigningKey | undefined {
    const key = header.kid === undefined ? undefined : this.byKid.get(header.kid);
    return key && key.alg === header.alg ? key : undefined;
  }

  /** The public JWK Set (RFC 7517), rebuilt only when the ring changes. */
  jwks(): { keys: JWK[] } {
    return this.view;
  }

  /** The JWK Set serialised once per change, for the JWKS endpoint. */
  jwksJson(): string {
    return this.viewJson;
  }

  /** When `maintain` next has work to do. */
  nextDueAt(): number {
    const retirements = this.retired.map((entry) => entry.publishedUntil);
    return Math.min(this.next.signsFrom, ...retirements);
  }

  /** Promotes the next key when its time has come and drops keys no token can need. Returns whether anything changed. */
  async maintain(): Promise<boolean> {
    const now = this.options.clock.now();
    let changed = false;
    if (now >= this.next.signsFrom) {
      // If the process slept through several intervals, the schedule restarts from now.
      const nextStart = Math.max(this.next.signsFrom + this.options.rotationIntervalMs, now + this.options.rotationIntervalMs);
      const upcoming = await generateSigningKey(this.options.algorithm, nextStart);
      this.retired.push({ key: this.current, publishedUntil: now + this.options.retentionMs });
      this.current = this.next;
      this.next = upcoming;
      changed = true;
    }
    const kept = this.retired.filter((entry) => entry.publishedUntil > now);
    if (kept.length !== this.retired.length) {
      this.retired = kept;
      changed = true;
    }
    if (changed) this.rebuildView();
    return changed;
  }

  private rebuildView(): void {
    const published = [this.current, this.next, ...this.retired.map((entry) => entry.key)];
    this.byKid = new Map(published.map((key) => [key.kid, key]));
    this.view = Object.freeze({ keys: published.map((key) => key.publicJwk) }) as { keys: JWK[] };
    this.viewJson = JSON.stringify(this.view);
  }
}
