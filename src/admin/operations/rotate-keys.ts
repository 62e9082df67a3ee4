import { answering, isoTime, optionalBoolean, refuseUnknownFields } from '../input.js';
import type { AdminOperation } from '../operation.js';

/** Said in the answer, the CLI and docs/operations.md alike: dropping keys breaks every token they signed, on purpose. */
export const DROP_PREVIOUS_WARNING =
  'every access token signed by a dropped key is refused from now on: clients must refresh (refresh tokens are not signed and keep working) or log in again; ' +
  'resource servers that cache this JWKS keep the dropped keys until their cache expires (at most 5 minutes for ours)';

/**
 * POST /admin/v1/keys/rotate: a new signing key from now on, on every
 * instance (the keeper's lock and compare-and-set; the others hear of it
 * through the ring's change notice). Earlier keys stay published until the
 * tokens they signed have expired, so nothing already issued breaks;
 * `{"drop_previous": true}` (a leaked key) removes them at once instead.
 */
export const rotateKeysOperation: AdminOperation = {
  path: '/admin/v1/keys/rotate',
  method: 'POST',
  run: (ctx, input) =>
    answering(async () => {
      refuseUnknownFields(input, ['drop_previous']);
      const dropPrevious = optionalBoolean(input, 'drop_previous');
      const rotation = await ctx.keyRotation.rotateNow({ dropPrevious });
      if (dropPrevious) ctx.logger.warn({ kid: rotation.kid, dropped: rotation.dropped }, 'admin: earlier signing keys dropped; tokens they signed no longer verify');
      return {
        status: 200,
        body: {
          kid: rotation.kid,
          signsFrom: isoTime(rotation.signsFrom),
          nextKid: rotation.nextKid,
          published: rotation.published,
          dropped: rotation.dropped,
          ...(dropPrevious ? { warning: DROP_PREVIOUS_WARNING } : {}),
        },
      };
    }),
};
