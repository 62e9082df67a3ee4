import { OPENAPI_PATH } from '../../config/paths.js';

/*
 * How the gateway serves its OpenAPI document. A leaf module, so that the
 * discovery endpoint can link to the document (RFC 8631 `service-desc`)
 * without importing the document builder, which imports the endpoints.
 */

/** The methods the document is served with (anything else is 405). */
export const OPENAPI_METHODS: readonly string[] = ['GET', 'HEAD'];

/** RFC 8631: a `service-desc` link names a machine-readable description of the service. */
export const serviceDescLink = (issuer: string): string => `<${issuer}${OPENAPI_PATH}>; rel="service-desc"`;

/** The registered media type of an OpenAPI document (IANA, with its version parameter). */
export const OPENAPI_MEDIA_TYPE = 'application/vnd.oai.openapi+json';
export const OPENAPI_CONTENT_TYPE = `${OPENAPI_MEDIA_TYPE};version=3.1`;

/** Like the discovery document: it changes only with a release or the configuration. */
export const OPENAPI_CACHE_CONTROL = 'public, max-age=3600';
