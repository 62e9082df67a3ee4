import { randomBytes } from 'node:crypto';
import { exportJWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { KeyRing } from '../../src/keys/key-ring.js';
import { KeyRingSealError, openRing, rememberDropped, sealRing } from '../../src/keys/ring-document.js';
import { KeySealer } from '../../src/keys/sealing.js';
import { generateSigningKey, retimed, type SigningKey } from '../../src/keys/signing-key.js';
import { ManualClock } from '../helpers/clock.js';

/**
 * The key ring as the store keeps it (src/keys/ring-document.ts): public
 * halves in the clear, private ones sealed under the KEK, the kids a
 * rotation dropped on purpose remembered beside them.
 */

const HOUR = 3_600_000;
const INTERVAL = 24 * HOUR;
const ENVIRONMENT = 'production';
const kek = randomBytes(32);
const sealer = new KeySealer(kek, ENVIRONMENT);
const clock = new ManualClock();
const t0 = clock.now();

let current: SigningKey;
let next: SigningKey;
/** A key of this environment the store does not hold. */
let other: SigningKey;
beforeAll(async () => {
  [current, next, other] = await Promise.all([
    generateSigningKey('ES256', t0, t0 - INTERVAL),
    generateSigningKey('ES256', t0 + INTERVAL, t0),
    generateSigningKey('ES256', t0 + INTERVAL, t0),
  ]);
});

/** A ring holding `keys`, as an instance has it installed. */
function ringWith(keys: readonly SigningKey[]): KeyRing {
  const ring = new KeyRing({ algorithm: 'ES256', rotationIntervalMs: INTERVAL, retentionMs: HOUR, clock });
  ring.replaceKeys(keys);
  return ring;
}

interface StoredKey {
  kid: string;
  signsFrom: number;
  publishedAt?: number;
  publicJwk: Record<string, unknown>;
  privateJwk: unknown;
}
const parse = (document: string) => JSON.parse(document) as { keys: StoredKey[]; dropped?: string[] };
const stored = (document: string) => ({ version: 1, document });
const privateD = async (key: SigningKey) => (await exportJWK(key.privateKey)).d;

describe('sealing a ring for the store', () => {
  it('keeps each public half in the clear and seals the private one: no private member is readable', async () => {
    const document = await sealRing([current, next], [], sealer);
    const keys = parse(document).keys;
    expect(keys.map((key) => key.kid)).toEqual([current.kid, next.kid]);
    expect(keys[0]).toMatchObject({ kid: current.kid, alg: 'ES256', signsFrom: t0, publishedAt: t0 - INTERVAL, publicJwk: { x: current.publicJwk.x, y: current.publicJwk.y } });
    for (const key of keys) {
      expect(typeof key.privateJwk).toBe('string');
      expect(key.publicJwk).not.toHaveProperty('d');
    }
    for (const key of [current, next]) expect(document).not.toContain(await privateD(key));
  });

  it('writes the keys in the ring\'s own order, by when each signs, whatever order it was given', async () => {
    expect(parse(await sealRing([next, current], [], sealer)).keys.map((key) => key.kid)).toEqual([current.kid, next.kid]);
  });

  it.each([
    ['no kid dropped: no list written', [], undefined],
    ['kids dropped on purpose: written beside the keys', ['leaked-1', 'replaced-2'], ['leaked-1', 'replaced-2']],
  ])('%s', async (_rule, dropped, written) => {
    expect(parse(await sealRing([current], dropped, sealer)).dropped).toEqual(written);
  });
});

describe('opening a stored ring', () => {
  it("answers the ring's own keys, without decrypting, when the store holds exactly its kids with the same starts", async () => {
    const document = await sealRing([current, next], [], sealer);
    // Under another KEK nothing could be decrypted: the answer shows no decryption was tried.
    const ring = ringWith([current, next]);
    const opened = await openRing(stored(document), ring, new KeySealer(randomBytes(32), ENVIRONMENT));
    expect(opened.keys).toBe(ring.list());
  });

  it.each([
    ['holds no key yet (starting)', () => []],
    ['holds one of the stored keys (a key was added elsewhere)', () => [current]],
    ['holds another start for a stored kid (a rotation elsewhere brought the next key forward)', () => [current, retimed(next, t0 + HOUR)]],
    ['holds as many keys, one of them not stored (the store came back empty and another instance wrote its own)', () => [current, other]],
  ])('decrypts the stored keys when the instance %s', async (_case, local) => {
    const document = await sealRing([current, next], [], sealer);
    const { keys } = await openRing(stored(document), ringWith(local()), sealer);
    expect(keys.map(({ kid, alg, signsFrom, publishedAt }) => ({ kid, alg, signsFrom, publishedAt }))).toEqual(
      [current, next].map(({ kid, alg, signsFrom, publishedAt }) => ({ kid, alg, signsFrom, publishedAt })),
    );
    expect(keys[0]).not.toBe(current);
    expect(await privateD(keys[0]!)).toBe(await privateD(current));
    expect(await privateD(keys[1]!)).toBe(await privateD(next));
  });

  it.each([
    ['another key-encryption key', new KeySealer(randomBytes(32), ENVIRONMENT)],
    ['another environment', new KeySealer(kek, 'sandbox')],
  ])('refuses a ring sealed under %s, naming the kid and the setting every instance must share', async (_case, other) => {
    const document = await sealRing([current, next], [], sealer);
    const failure = await openRing(stored(document), ringWith([]), other).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(KeyRingSealError);
    expect(failure).toMatchObject({ name: 'KeyRingSealError', kid: current.kid });
    expect((failure as Error).message).toContain(`cannot decrypt signing key ${current.kid} from the store`);
    expect((failure as Error).message).toContain('TOKEN_GATEWAY_KEY_ENCRYPTION_KEY');
  });

  it('takes a key stored before keys carried publishedAt as published one interval before it signed, as the schedule did', async () => {
    const document = parse(await sealRing([current, next], [], sealer));
    for (const key of document.keys) delete key.publishedAt;
    const { keys } = await openRing(stored(JSON.stringify(document)), ringWith([]), sealer);
    expect(keys.map((key) => key.publishedAt)).toEqual([t0 - INTERVAL, t0]);
  });

  it.each([
    ['the kids it says were dropped on purpose', ['leaked-1'], ['leaked-1']],
    ['none for a ring written without the list (before rotations now existed)', [], []],
  ])('reads %s', async (_case, dropped, read) => {
    const document = await sealRing([current], dropped, sealer);
    expect((await openRing(stored(document), ringWith([current]), sealer)).dropped).toEqual(read);
  });
});

describe('remembering dropped kids', () => {
  const kids = (from: number, count: number) => Array.from({ length: count }, (_, i) => `kid-${from + i}`);

  it.each([
    ['nothing on either side', [], [], []],
    ['the stored ones, then this instance\'s', ['a', 'b'], ['c'], ['a', 'b', 'c']],
    ['each kid once', ['a', 'b'], ['b', 'c', 'a'], ['a', 'b', 'c']],
    ['the stored ones when this instance knows none (it is starting)', ['a'], [], ['a']],
    ['this instance\'s when the store forgot them (it came back empty)', [], ['a', 'b'], ['a', 'b']],
    ['the 100 most recent of more', kids(0, 80), kids(80, 40), kids(20, 100)],
    ['the 100 most recent when one more is added to a full list', kids(0, 100), ['new'], [...kids(1, 99), 'new']],
  ])('keeps %s', (_rule, earlier, later, kept) => {
    expect(rememberDropped(earlier, later)).toEqual(kept);
  });
});
