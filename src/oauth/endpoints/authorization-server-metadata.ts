import { AUTHORIZATION_SERVER_METADATA_PATH } from '../../config/paths.js';
import { discoveryEndpoint, sendProviderMetadata } from './discovery.js';
import type { Endpoint } from './endpoint.js';

/**
 * GET /.well-known/oauth-authorization-server (RFC 8414 section 3): where
 * OAuth 2.0 clients look for the metadata that OpenID Connect clients find at
 * /.well-known/openid-configuration (openid-client's `discovery` with
 * `algorithm: 'oauth2'`, Spring's `ClientRegistrations`). The same document:
 * RFC 8414 section 2 defines the members both use, and lets the OpenID ones
 * stand beside them.
 */
export const authorizationServerMetadataEndpoint: Endpoint = {
  path: AUTHORIZATION_SERVER_METADATA_PATH,
  methods: discoveryEndpoint.methods,
  oauthErrors: false,

  async serve(ctx, exchange) {
    sendProviderMetadata(ctx, exchange);
  },
};
