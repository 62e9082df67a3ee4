import type { InstanceConfirmation } from '../../keys/acknowledgements.js';
import type { ManualRotation } from '../../keys/keeper.js';
import { SuccessorNotPublishedLongEnough } from '../../keys/key-ring.js';
import { jwksMaxAgeSeconds } from '../../keys/publication.js';
import { AdminRefusal, answering, isoTime, optionalBoolean, refuseUnknownFields } from '../input.js';
import type { AdminOperation } from '../operation.js';

/** The JWKS's own max-age, as this gateway sends it (half the rotation interval, at most 5 minutes). */
const cacheLifetime = (maxAgeSeconds: number): string =>
  `at most ${maxAgeSeconds % 60 === 0 ? `${maxAgeSeconds / 60} minute${maxAgeSeconds === 60 ? '' : 's'}` : `${maxAgeSeconds} s`} for ours`;

/** Said in the answer, the CLI and docs/operations.md alike: dropping keys breaks every token they signed, on purpose. */
export const dropPreviousWarning = (maxAgeSeconds: number): string =>
  'every access token signed by a dropped key is refused from now on: clients must refresh (refresh tokens are not signed and keep working) or log in again; ' +
  `resource servers that cache this JWKS keep the dropped keys until their cache expires (${cacheLifetime(maxAgeSeconds)})`;

/** The price of the emergency: the new key was never in anyone's cached JWKS. */
export const immediateWarning = (maxAgeSeconds: number): string =>
  'a brand-new key signs from now on: resource servers that verify our tokens with a cached JWKS refuse the tokens it signs until they fetch the JWKS again ' +
  `(${cacheLifetime(maxAgeSeconds)}; jose and openid-client fetch again at once on an unknown kid)`;

/**
 * POST /admin/v1/keys/rotate. The published next key takes over as soon as
 * every cached JWKS holds it (now, unless it was published within the JWKS
 * cache lifetime; the answer says when), and the key after it is published
 * at once. Earlier keys stay published until the tokens they signed have
 * expired, so nothing already issued breaks; `drop_previous` (a leaked key)
 * removes them at once instead, which needs a next key that may sign now.
 * `immediate` (the emergency) signs with a brand-new key at once instead.
 * Either way the answer comes once every live instance has installed the
 * new ring: 200, or 202 naming the instances that could not confirm.
 */
export const rotateKeysOperation: AdminOperation = {
  path: '/admin/v1/keys/rotate',
  method: 'POST',
  run: (ctx, input) =>
    answering(async () => {
      refuseUnknownFields(input, ['drop_previous', 'immediate']);
      const dropPrevious = optionalBoolean(input, 'drop_previous');
      const immediate = optionalBoolean(input, 'immediate');
      const rotation = await ctx.keyRotation.rotateNow({ dropPrevious, immediate }).catch((error: unknown) => {
        if (error instanceof SuccessorNotPublishedLongEnough) throw notYet(error);
        throw error;
      });
      if (dropPrevious) ctx.logger.warn({ kid: rotation.kid, dropped: rotation.dropped }, 'admin: earlier signing keys dropped; tokens they signed no longer verify');
      if (immediate) ctx.logger.warn({ kid: rotation.kid }, 'admin: emergency rotation, a brand-new key signs at once');
      const unconfirmed = rotation.instances.unconfirmed.length > 0;
      if (unconfirmed) ctx.logger.warn({ unconfirmed: rotation.instances.unconfirmed.map((entry) => entry.instance) }, 'admin: key rotation not confirmed by every instance');
      const now = ctx.clock.now();
      const maxAge = jwksMaxAgeSeconds(ctx.config.keys.rotation_interval);
      const warnings = [dropPrevious && dropPreviousWarning(maxAge), immediate && immediateWarning(maxAge), unconfirmed && unconfirmedWarning(rotation.instances)].filter(Boolean);
      return {
        status: unconfirmed ? 202 : 200,
        body: {
          kid: rotation.kid,
          signsFrom: isoTime(rotation.signsFrom),
          signingNow: rotation.signsFrom <= now,
          previousKid: rotation.previousKid,
          nextKid: rotation.nextKid,
          nextSignsFrom: isoTime(rotation.nextSignsFrom),
          published: rotation.published,
          dropped: rotation.dropped,
          immediate: rotation.immediate,
          changed: rotation.changed,
          confirmedEverywhere: !unconfirmed,
          confirmed: rotation.instances.confirmed,
          unconfirmed: rotation.instances.unconfirmed.map(({ instance, lastSeen, live }) => ({ instance, lastSeen: isoTime(lastSeen), live })),
          ...(rotation.signsFrom > now ? { note: laterNote(rotation) } : {}),
          ...(warnings.length > 0 ? { warning: warnings.join('; ') } : {}),
        },
      };
    }),
};

function laterNote(rotation: ManualRotation): string {
  return (
    `${rotation.previousKid} goes on signing until ${isoTime(rotation.signsFrom)}: ${rotation.kid} was published too recently for every cached JWKS to hold it before then` +
    (rotation.changed ? '' : ' (a rotation already asked for it; nothing changed)')
  );
}

function unconfirmedWarning({ unconfirmed }: InstanceConfirmation): string {
  const named = unconfirmed.map((entry) => `${entry.instance} (${entry.live ? 'did not answer in time' : `not heard from since ${isoTime(entry.lastSeen)}`})`);
  return (
    `not confirmed by ${named.join(', ')}: until it reaches redis again, such an instance signs and verifies with the ring it had ` +
    '(a dropped key included); it installs the new ring as soon as it does'
  );
}

function notYet(error: SuccessorNotPublishedLongEnough): AdminRefusal {
  return new AdminRefusal(
    409,
    `drop_previous needs a next key that every cached JWKS holds, and ${error.kid} was published at ${isoTime(error.publishedAt)}: ` +
      `rotate with drop_previous from ${isoTime(error.maySignFrom)}, or now with "immediate": true as well ` +
      '(a brand-new key signs at once; resource servers with a cached JWKS refuse its tokens until they fetch it again)',
  );
}
