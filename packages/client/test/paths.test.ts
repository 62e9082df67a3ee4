import { describe, expect, it } from 'vitest';
import * as entry from '../src/index.js';
import * as paths from '../src/paths.js';

// The SPEC's words (and the RFC paths the gateway adds), copied here by hand: these are the values the gateway is
// held to (test/client/paths.test.ts serves them from a real gateway).
const WIRE = {
  TOKEN_PATH: '/oauth2/v1/token', // SPEC 4.3, 4.4
  REVOKE_PATH: '/oauth2/v1/revokeToken', // SPEC 4.5
  DISCOVERY_PATH: '/.well-known/openid-configuration', // SPEC 4.1
  JWKS_PATH: '/oauth2/v1/keys', // SPEC 4.2
  OPENAPI_PATH: '/oauth2/v1/openapi.json', // the gateway's own
  AUTHORIZATION_SERVER_METADATA_PATH: '/.well-known/oauth-authorization-server', // RFC 8414 3
  INTROSPECT_PATH: '/oauth2/v1/introspect', // the gateway's own (RFC 7662)
  CLIENT_ID_HEADER: 'client_id', // SPEC 4.4, 4.5
  CLIENT_SECRET_HEADER: 'client_secret', // SPEC 4.4, 4.5
  GRANT_TYPE_HEADER: 'grant_type', // SPEC 4.3, 4.4
  REFRESH_TOKEN_HEADER: 'refresh_token', // SPEC 4.4
  TOKEN_HEADER: 'token', // SPEC 4.5
};

describe('paths: the wire names (SPEC 4)', () => {
  it('are exactly the SPEC names, and nothing else is declared there', () => {
    expect({ ...paths }).toEqual(WIRE);
  });

  it('are exported by the main entry too, as the same values', () => {
    for (const [name, value] of Object.entries(WIRE)) expect({ name, value: entry[name as keyof typeof entry] }).toEqual({ name, value });
  });
});
