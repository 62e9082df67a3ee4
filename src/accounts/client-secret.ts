import { randomBytes } from 'node:crypto';

/**
 * A new client secret: 256 random bits as 43 base64url characters, twice the
 * floor of 128 bits that docs/configuration.md sets (the gateway remembers a verified secret as an
 * HMAC, which is only as hard to guess from as the secret itself). base64url
 * needs no quoting in JSON, headers (SPEC 4.4 sends it as one) or shells.
 */
export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}
