import { GatewayError } from '../errors/gateway-error.js';

/**
 * The path is forwarded unchanged, so it must mean the same thing to the
 * upstream as to our route table: dot segments and encoded separators, which
 * an upstream may resolve to a path outside the route's prefix, are refused.
 */
export function assertSafePath(path: string): void {
  for (const segment of path.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw new GatewayError('MALFORMED_REQUEST', { detail: 'invalid percent-encoding in path' });
    }
    if (decoded === '.' || decoded === '..' || decoded.includes('/') || decoded.includes('\\') || decoded.includes('\0')) {
      throw new GatewayError('MALFORMED_REQUEST', { detail: 'dot segment or encoded separator in path' });
    }
  }
}
