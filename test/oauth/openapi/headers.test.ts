import { describe, expect, it } from 'vitest';
import { allowHeader, REQUEST_ID_PATTERN, requestIdHeader, SHARED_HEADERS } from '../../../src/oauth/openapi/headers.js';
import { requestIdOf } from '../../../src/http/request-id.js';
import type { IncomingMessage } from 'node:http';

describe('response headers in the OpenAPI document', () => {
  it("documents the X-Request-Id pattern the gateway keeps a client's id by", () => {
    const pattern = new RegExp(REQUEST_ID_PATTERN);
    for (const id of ['abcd1234', 'a'.repeat(128), 'x y z 123', 'short']) {
      const kept = requestIdOf({ headers: { 'x-request-id': id } } as unknown as IncomingMessage) === id;
      expect(pattern.test(id)).toBe(kept);
    }
    expect(requestIdHeader()).toEqual({ 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } });
    expect(SHARED_HEADERS['X-Request-Id']).toMatchObject({ required: true, schema: { pattern: REQUEST_ID_PATTERN } });
  });

  it('writes Allow exactly as the gateway sends it', () => {
    expect(allowHeader(['GET', 'HEAD'])).toMatchObject({ required: true, schema: { const: 'GET, HEAD' } });
  });
});
