import { answering, isoTime, refuseUnknownFields } from '../input.js';
import type { AdminOperation } from '../operation.js';

/**
 * GET /admin/v1/keys: the published signing keys, as the JWKS has them but
 * with what an operator asks about a rotation: which key signs now, which is
 * next, which are retired but still verify, since when each signs and until
 * when it stays published (`null` for the last one: it has no successor yet).
 * Never a private key. The ring is shared through the store, so any worker
 * answers for all.
 */
export const keysOperation: AdminOperation = {
  path: '/admin/v1/keys',
  method: 'GET',
  run: (ctx, input) =>
    answering(async () => {
      refuseUnknownFields(input, []);
      const keys = ctx.keyRing.describe().map((key) => ({
        kid: key.kid,
        alg: key.alg,
        state: key.state,
        signsFrom: isoTime(key.signsFrom),
        publishedUntil: Number.isFinite(key.publishedUntil) ? isoTime(key.publishedUntil) : null,
      }));
      return { status: 200, body: { rotationInterval: ctx.config.keys.rotation_interval / 1000, keys } };
    }),
};
