import type { JWK, JWSHeaderParameters } from 'jose';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors/gateway-error.js';
import { earliestSigningTime } from './publication.js';
import { generateSigningKey, retimed, type SigningAlgorithm, type SigningKey } from './signing-key.js';

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

/** What a rotation now would install, and what it means for the answer. */
export interface RotationPlan {
  /** The whole key list to install. */
  readonly keys: SigningKey[];
  /** The key that takes over, from its `signsFrom` (now, or once it may: see keys/publication.ts). */
  readonly successor: SigningKey;
  /** The key signing now, which goes on signing until the successor starts. */
  readonly current: SigningKey;
  /** The key after the successor, published now at the latest. */
  readonly next: SigningKey;
  /** False when the ring already said all this (a repeated rotation before the successor took over). */
  readonly changed: boolean;
}

/**
 * Dropping the keys that signed before needs a successor that may sign at
 * once; the next key was published too recently for that.
 */
export class SuccessorNotPublishedLongEnough extends Error {
  constructor(
    readonly kid: string,
    readonly publishedAt: number,
    readonly maySignFrom: number,
  ) {
    super(`the next key ${kid} was published at ${new Date(publishedAt).toISOString()} and may sign only from ${new Date(maySignFrom).toISOString()}`);
    this.name = 'SuccessorNotPublishedLongEnough';
  }
}

/**
 * The ordered set of keys: the one with the latest `signsFrom` not in the
 * future signs; a key with a future `signsFrom` is already published (so
 * verifiers that cache the JWKS know it before it signs anything); a
 * superseded key stays published until every token it signed has expired.
 * No key signs before it has been published for the JWKS cache lifetime and
 * a margin (`keys/publication.ts`), except the first key of a new ring,
 * which no cache can have missed.
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
    return Promise.all([this.generate(now, now), this.generate(now + this.options.rotationIntervalMs, now)]);
  }

  /** The interval each key signs for. */
  get rotationIntervalMs(): number {
    return this.options.rotationIntervalMs;
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
    const upcoming = plan.upcomingSignsFrom === undefined ? [] : [await this.generate(plan.upcomingSignsFrom)];
    return [...plan.kept, ...upcoming];
  }

  /**
   * A rotation now (the admin API): the next key, already published, takes
   * over as soon as it may (now, if it was published long enough ago;
   * otherwise the current key signs until then), and the key after it is
   * published at once, an interval later, so the schedule carries on from
   * there. Keys that have signed stay published until their tokens have
   * expired or, with `dropPrevious` (a leaked key), go at once: that needs a
   * successor that may sign now, or it throws SuccessorNotPublishedLongEnough.
   * Repeating it before the successor takes over changes nothing.
   */
  async promotion(dropPrevious: boolean): Promise<RotationPlan> {
    const now = this.options.clock.now();
    const { kept, current, waiting } = this.phases(now);
    const candidate = waiting[0] ?? (await this.generate(now + this.options.rotationIntervalMs));
    // Strictly after the current signer: two keys starting at the same instant would leave the order to chance.
    const earliest = Math.max(now, earliestSigningTime(candidate.publishedAt, this.options.rotationIntervalMs), current.signsFrom + 1);
    if (dropPrevious && earliest > now) throw new SuccessorNotPublishedLongEnough(candidate.kid, candidate.publishedAt, earliest);
    // Never later than it was due anyway.
    const successor = retimed(candidate, Math.min(candidate.signsFrom, earliest));
    const after = waiting[1];
    const next = after ? retimed(after, successor.signsFrom + this.options.rotationIntervalMs) : await this.generate(successor.signsFrom + this.options.rotationIntervalMs);
    const signed = dropPrevious ? [] : kept.filter((key) => key.signsFrom <= now);
    // Other keys that never signed go: they signed nothing.
    const keys = [...signed, successor, next];
    return { keys, successor, current, next, changed: !sameKeys(keys, this.keys) };
  }

  /**
   * The first step of an emergency rotation: a brand-new key, published
   * now as the key after the next one, so that every instance holds it
   * before any signs with it. Harmless if the second step never comes: the
   * schedule simply reaches it in its turn.
   */
  async emergencyPublication(): Promise<{ keys: SigningKey[]; fresh: SigningKey }> {
    const now = this.options.clock.now();
    const { kept, current, waiting } = this.phases(now);
    const last = waiting.at(-1) ?? current;
    const fresh = await this.generate(Math.max(last.signsFrom, now) + this.options.rotationIntervalMs);
    return { keys: [...kept, fresh], fresh };
  }

  /**
   * The second step: the brand-new key signs from now, before resource
   * servers' cached JWKS can hold it (the emergency's stated price); every
   * other key that never signed goes, a new next key is published an
   * interval ahead, and with `dropPrevious` every key that signed goes too.
   */
  async emergencyTakeover(freshKid: string, dropPrevious: boolean): Promise<RotationPlan> {
    const now = this.options.clock.now();
    const { kept, current } = this.phases(now);
    const fresh = this.keys.find((key) => key.kid === freshKid);
    if (!fresh) throw new Error(`the emergency key ${freshKid} is no longer in the ring`);
    const successor = retimed(fresh, Math.max(now, current.signsFrom + 1));
    const next = await this.generate(successor.signsFrom + this.options.rotationIntervalMs);
    const signed = dropPrevious ? [] : kept.filter((key) => key.signsFrom <= now && key.kid !== freshKid);
    const keys = [...signed, successor, next];
    return { keys, successor, current, next, changed: true };
  }

  /** Installs a new key list (from `maintain` or from the shared store); returns whether it differed. */
  replaceKeys(keys: readonly SigningKey[]): boolean {
    const sorted = [...keys].sort((a, b) => a.signsFrom - b.signsFrom);
    if (sameKeys(sorted, this.keys)) return false;
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

  /** The keys still needed at `now`, the one signing, and those waiting to sign in order. */
  private phases(now: number): { kept: readonly SigningKey[]; current: SigningKey; waiting: SigningKey[] } {
    const { kept } = this.plan(now);
    const current = this.selectSigningKey();
    const waiting = kept.filter((key) => key.signsFrom > now).sort((a, b) => a.signsFrom - b.signsFrom);
    return { kept, current, waiting };
  }

  private generate(signsFrom: number, publishedAt = this.options.clock.now()): Promise<SigningKey> {
    return generateSigningKey(this.options.algorithm, signsFrom, publishedAt);
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

/** The same keys with the same starts, in the same order: a re-timed key is a change. */
export function sameKeys(a: readonly SigningKey[], b: readonly SigningKey[]): boolean {
  return a.length === b.length && a.every((key, i) => key.kid === b[i]?.kid && key.signsFrom === b[i]?.signsFrom);
}
