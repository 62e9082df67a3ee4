import type { ServerResponse } from 'node:http';
import type { AdminAccess } from '../access.js';
import { accessRefusal } from '../operation-route.js';
import { sendError, type AdminRoute } from '../server.js';
import { OPS_PAGE, OPS_PATHS } from './page.js';
import { OPS_SCRIPT } from './script.js';
import { OPS_STYLE } from './style.js';

export { OPS_PATHS };

/**
 * Nothing but this origin's own script and style, and calls to this origin:
 * no inline script, no eval, no framing, no form posted anywhere. The page
 * builds every element with textContent, so even a policy or route name
 * written to look like markup stays text.
 */
export const OPS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': OPS_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

/**
 * GET /ops: the operations page, one HTML page with its script and style
 * from two more paths of the same listener, built into the gateway (no build
 * step, no external asset: it works on an air-gapped host).
 *
 * It holds no data: everything it shows comes from the admin API's read
 * operations, which the page calls with the admin token in the Authorization
 * header, as the CLI does. A browser cannot send that header on a
 * navigation, so the page asks for the token in a form and keeps it for the
 * tab (sessionStorage, which is per origin, port included, unlike a cookie).
 * The page follows the API's access rule: where the API is off (a network
 * listener without admin.token_file) the page is 403 too; a request that
 * presents a wrong token is 401; one that presents none gets the page, which
 * asks for the token before it can show anything.
 */
export function opsPageRoutes(access: AdminAccess): Map<string, AdminRoute> {
  const asset = (contentType: string, body: string): AdminRoute => ({
    methods: ['GET', 'HEAD'],
    async handle(req, res) {
      const refusal = accessRefusal(req, access);
      // No token presented is not a refusal of the page: the page asks for it. A wrong one is.
      if (refusal && (access.token === undefined || req.headers.authorization !== undefined)) return sendError(res, refusal.status, refusal.message);
      send(res, contentType, body);
    },
  });
  return new Map([
    [OPS_PATHS.page, asset('text/html; charset=utf-8', OPS_PAGE)],
    [OPS_PATHS.script, asset('text/javascript; charset=utf-8', OPS_SCRIPT)],
    [OPS_PATHS.style, asset('text/css; charset=utf-8', OPS_STYLE)],
  ]);
}

function send(res: ServerResponse, contentType: string, body: string): void {
  res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
