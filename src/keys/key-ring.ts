import type { JWK, JWSHeaderParameters } from 'jose';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors/gateway-error.js';
import { generateSigningKey, type SigningAlgorithm, type SigningKey } from './signing-key.js';

export interface KeyRingOptions {
  /** The algorithm of keys generated from now on (published keys keep theirs). */
  algorithm: SigningAlgorithm;
  /** How long each key signs before the next takes over. */
  rotationIntervalMs: number;
  /** How long a superseded key stays published: the longest a token it signed can still be accepted. */
  retentionMs: number;
  clock: Clock;
}

/** A published key, for the admin API: never its private half. */
export interface KeyDescription {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly state: 'signing' | 'next' | 'retired';
  readonly signsFrom: number;
  readonly publishedUntil: number;
}

/** What `maintain` has to do at a given time. */
export interface RingPlan {
  /** The keys still needed (signing, upcoming, or retired but still verifying). */
  readonly kept: readonly SigningKey[];
  /** When no published key is waiting to sign, the time the new one should start. */
  readonly upcomingSignsFrom: number | undefined;
  readonly changes: boolean;
}

/**
 * The ordered set of keys: the one with the latest `signsFrom` not in the
 * future signs; a key with a future `signsFrom` is already published (so
 * verifiers that cache the JWKS know it before it signs anything); a
 * superseded key stays published until every token it signed has expired.
 *
 * Which key signs is a function of the key list and the clock, so every
 * instance sharing the list switches at the same moment without talking to
 * the others; only adding and dropping keys (`maintainedKeys`, installed with
 * `replaceKeys` by the keeper) changes the list, and with a shared store
 * only one instance does that at a time.
 */
export class KeyRing {
  private keys: readonly SigningKey[] = [];
  private view: { keys: JWK[] } = { keys: [] };
  private viewJson = '{"keys":[]}';
  private byKid = new Map<string, SigningKey>();
  private algorithmsInUse: SigningAlgorithm[] = [];

  constructor(private readonly options: KeyRingOptions) {}

  /** The first two keys of a new ring: one signing from now, the next one interval later. */
  async initialKeys(): Promise<SigningKey[]> {
    const now = this.options.clock.now();
    return Promise.all([
      generateSigningKey(this.options.algorithm, now),
      generateSigningKey(this.options.algorithm, now + this.options.rotationIntervalMs),
    ]);
  }

  /** The algorithm new keys are generated with. */
  get algorithm(): SigningAlgorithm {
    return this.options.algorithm;
  }

  /** Every algorithm of a published key: what verification accepts (each key only with its own). Rebuilt only when the ring changes. */
  get algorithms(): SigningAlgorithm[] {
    return this.algorithmsInUse;
  }

  /** False until keys are loaded (a shared store not reached yet). */
  get loaded(): boolean {
    return this.keys.length > 0;
  }

  list(): readonly SigningKey[] {
    return this.keys;
  }

  /** The one key that signs now. */
  selectSigningKey(): SigningKey {
    const now = this.options.clock.now();
    let signing: SigningKey | undefined;
    for (const key of this.keys) if (key.signsFrom <= now && (!signing || key.signsFrom > signing.signsFrom)) signing = key;
    // Only a clock set back before the first key can leave none; the earliest key is then the best guess.
    signing ??= this.keys[0];
    if (!signing) throw new GatewayError('SERVICE_UNAVAILABLE', { detail: 'signing keys not loaded yet', headers: { 'Retry-After': '1' } });
    return signing;
  }

  /**
   * The key for a token header: exactly one published key with that kid and
   * that key's own algorithm, or none. A header without a kid matches nothing.
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

  /** When `maintain` next has work to do: the next key starts signing, or a superseded one can go. */
  nextDueAt(): number {
    const now = this.options.clock.now();
    const times = this.keys.flatMap((key) => {
      const until = this.publishedUntil(key);
      return [key.signsFrom > now ? key.signsFrom : Infinity, until];
    });
    return Math.min(...times);
  }

  plan(now = this.options.clock.now()): RingPlan {
    const kept = this.keys.filter((key) => this.publishedUntil(key) > now);
    const latest = kept.reduce<SigningKey | undefined>((last, key) => (!last || key.signsFrom > last.signsFrom ? key : last), undefined);
    const waiting = kept.some((key) => key.signsFrom > now);
    // If the process slept through several intervals, the schedule restarts from now.
    const upcomingSignsFrom = waiting
      ? undefined
      : Math.max((latest?.signsFrom ?? now) + this.options.rotationIntervalMs, now + this.options.rotationIntervalMs);
    return { kept, upcomingSignsFrom, changes: upcomingSignsFrom !== undefined || kept.length !== this.keys.length };
  }

  /**
   * The key list maintenance would install now: keys no token can need
   * dropped, and a new upcoming key once the last published one has started
   * signing. Undefined when nothing is due. Installing it is the caller's
   * (the keeper's) business, because with a shared store it must win a
   * compare-and-set first.
   */
  async maintainedKeys(): Promise<SigningKey[] | undefined> {
    const plan = this.plan();
    if (!plan.changes) return undefined;
    const upcoming = plan.upcomingSignsFrom === undefined ? [] : [await generateSigningKey(this.options.algorithm, plan.upcomingSignsFrom)];
    return [...plan.kept, ...upcoming];
  }

  /**
   * The key list of a rotation now (the admin API): a new key that signs from
   * now, and the next one published a whole interval before it takes over,
   * as the schedule would have it, so the schedule simply carries on from
   * here. Keys that have not signed yet go (they signed nothing, so nothing
   * breaks), the old upcoming key included: otherwise it would take over from
   * the new key at its own, earlier, time. Keys that have signed stay
   * published until their tokens have expired, or, with `dropPrevious` (a
   * leaked key), go at once, and every token they signed stops verifying.
   */
  async rotatedKeys(dropPrevious: boolean): Promise<SigningKey[]> {
    const now = this.options.clock.now();
    const signed = dropPrevious ? [] : this.plan(now).kept.filter((key) => key.signsFrom <= now);
    // Strictly after the current signer: two keys starting at the same instant would leave the order to chance.
    const signsFrom = Math.max(now, ...signed.map((key) => key.signsFrom + 1));
    return [
      ...signed,
      ...(await Promise.all([
        generateSigningKey(this.options.algorithm, signsFrom),
        generateSigningKey(this.options.algorithm, signsFrom + this.options.rotationIntervalMs),
      ])),
    ];
  }

  /** Installs a new key list (from `maintain` or from the shared store); returns whether it differed. */
  replaceKeys(keys: readonly SigningKey[]): boolean {
    const sorted = [...keys].sort((a, b) => a.signsFrom - b.signsFrom);
    if (sorted.length === this.keys.length && sorted.every((key, i) => key.kid === this.keys[i]?.kid)) return false;
    this.keys = Object.freeze(sorted);
    this.rebuildView();
    return true;
  }

  /**
   * Every published key as an operator sees it: the one signing now, the next
   * one (published ahead of its turn), and retired ones still verifying the
   * tokens they signed; with when each signs from and until when it stays
   * published (Infinity for the last key, which has no successor yet).
   */
  describe(): KeyDescription[] {
    const now = this.options.clock.now();
    const signing = this.keys.length > 0 ? this.selectSigningKey() : undefined;
    return this.keys.map((key) => ({
      kid: key.kid,
      alg: key.alg,
      state: key === signing ? 'signing' : key.signsFrom > now ? 'next' : 'retired',
      signsFrom: key.signsFrom,
      publishedUntil: this.publishedUntil(key),
    }));
  }

  /** A key signs until its successor starts, and verifies for `retentionMs` after that. */
  private publishedUntil(key: SigningKey): number {
    const successor = this.keys.find((other) => other.signsFrom > key.signsFrom);
    return successor ? successor.signsFrom + this.options.retentionMs : Infinity;
  }

  private rebuildView(): void {
    this.byKid = new Map(this.keys.map((key) => [key.kid, key]));
    this.algorithmsInUse = [...new Set(this.keys.map((key) => key.alg))];
    this.view = Object.freeze({ keys: this.keys.map((key) => key.publicJwk) }) as { keys: JWK[] };
    this.viewJson = JSON.stringify(this.view);
  }
}
