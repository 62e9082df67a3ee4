import { authorizationServerMetadataEndpoint } from '../oauth/endpoints/authorization-server-metadata.js';
import { discoveryEndpoint } from '../oauth/endpoints/discovery.js';
import { introspectEndpoint } from '../oauth/endpoints/introspect.js';
import { jwksEndpoint } from '../oauth/endpoints/jwks.js';
import { openApiEndpoint } from '../oauth/endpoints/openapi.js';
import { revokeEndpoint } from '../oauth/endpoints/revoke-token.js';
import { tokenEndpoint } from '../oauth/endpoints/token.js';
import { livenessEndpoint, readinessEndpoint } from './probes.js';
import { servedEndpoint, type Served } from './served.js';

/** The gateway's own endpoints, by exact path; everything else is routed (or 404). */
export const ENDPOINTS: ReadonlyMap<string, Served> = new Map<string, Served>(
  [
    servedEndpoint(tokenEndpoint, { policies: true }),
    servedEndpoint(revokeEndpoint, { policies: true }),
    servedEndpoint(introspectEndpoint, { policies: true }),
    servedEndpoint(discoveryEndpoint, { policies: true }),
    servedEndpoint(authorizationServerMetadataEndpoint, { policies: true }),
    servedEndpoint(jwksEndpoint, { policies: true }),
    servedEndpoint(openApiEndpoint, { policies: true }),
    servedEndpoint(readinessEndpoint, { policies: false }),
    servedEndpoint(livenessEndpoint, { policies: false }),
  ].map((served) => [served.name, served as Served]),
);
