import { describe, expect, it } from 'vitest';
import { OPENAPI_CONTENT_TYPE, serviceDescLink } from '../../../src/oauth/openapi/location.js';

describe('where the OpenAPI document is served', () => {
  it('links it from the issuer as an RFC 8631 service description', () => {
    expect(serviceDescLink('https://api.example.com')).toBe('<https://api.example.com/oauth2/v1/openapi.json>; rel="service-desc"');
  });

  it('serves it with its registered media type and version', () => {
    expect(OPENAPI_CONTENT_TYPE).toBe('application/vnd.oai.openapi+json;version=3.1');
  });
});
