import type { AdminRoute } from './server.js';

/** What a scrape answers: the exposition text and the Content-Type its registry states. */
export interface Exposition {
  readonly contentType: string;
  readonly text: string;
}

/**
 * GET /metrics, Prometheus's text exposition format. Open like the probes (as
 * admin.token_file says, the token guards the admin API only): what a scrape
 * shows is counts by route and code, and the admin listener is on loopback
 * unless the operator puts it elsewhere.
 */
export function metricsRoute(expose: () => Promise<Exposition>): AdminRoute {
  return {
    methods: ['GET'],
    async handle(_req, res) {
      const { contentType, text } = await expose();
      res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    },
  };
}
