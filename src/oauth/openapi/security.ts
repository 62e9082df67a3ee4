import type { OpenApiObject } from './types.js';

/** components.securitySchemes: the three places client credentials may travel. */
export const SECURITY_SCHEMES: Readonly<Record<string, OpenApiObject>> = {
  client_id: {
    type: 'apiKey',
    in: 'header',
    name: 'client_id',
    description: 'The application\'s id as a header (SPEC 4.4, 4.5). Always together with `client_secret`.',
  },
  client_secret: {
    type: 'apiKey',
    in: 'header',
    name: 'client_secret',
    description: 'The application\'s secret as a header (SPEC 4.4, 4.5).',
  },
  client_secret_basic: {
    type: 'http',
    scheme: 'basic',
    description: 'RFC 6749 2.3.1: `client_id:client_secret`, each part form-urlencoded, then base64. A failed Basic authentication gets a `WWW-Authenticate: Basic` challenge.',
  },
};

/**
 * Headers, HTTP Basic, or (the empty requirement) the JSON body's
 * `client_id` / `client_secret`, which OpenAPI cannot name as a scheme.
 */
export const CLIENT_AUTHENTICATION: readonly OpenApiObject[] = [{ client_id: [], client_secret: [] }, { client_secret_basic: [] }, {}];
