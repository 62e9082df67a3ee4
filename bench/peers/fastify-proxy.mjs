// Peer: fastify 5 + @fastify/http-proxy 11 (undici under @fastify/reply-from, its default pool), no logger.
// With a public key: a fast-jwt ES256 verifier with its verified-token cache (`cache: true`: 1000 entries, default
// hashed cache key) in an onRequest hook, checking the signature, exp/nbf, iss and aud; anything else is 401.
// With `--log` (anywhere in the arguments): fastify's built-in logger, `logger: true`, i.e. pino at `info` to standard
// output. With @fastify/http-proxy that is four lines per request: fastify's "incoming request" and "request completed",
// and @fastify/reply-from's "fetching from remote server" and "response received".
//   node bench/peers/fastify-proxy.mjs <port> <upstream-url> [<public-key.pem> <issuer>] [--log]
import { readFileSync } from 'node:fs';
import proxy from '@fastify/http-proxy';
import { createVerifier } from 'fast-jwt';
import Fastify from 'fastify';

const args = process.argv.slice(2);
const [port, upstream, publicKeyFile, issuer] = args.filter((arg) => arg !== '--log');
const app = Fastify({ logger: args.includes('--log') });

if (publicKeyFile) {
  const verify = createVerifier({ key: readFileSync(publicKeyFile, 'utf8'), algorithms: ['ES256'], cache: true, allowedIss: issuer, allowedAud: issuer });
  app.addHook('onRequest', (request, reply, done) => {
    const authorization = request.headers.authorization;
    if (authorization?.startsWith('Bearer ')) {
      try {
        verify(authorization.slice(7));
        done();
        return;
      } catch {
        // refused below
      }
    }
    reply.code(401).header('www-authenticate', 'Bearer error="invalid_token"').send({ error: 'invalid_token' });
  });
}

await app.register(proxy, { upstream, prefix: '/', http2: false });
await app.listen({ host: '127.0.0.1', port: Number(port) });
