// Peer: Node `http` server + an undici `Pool` (64 connections) streaming each response straight into the client's
// response (`pool.stream`); hop-by-hop headers dropped both ways. No authentication, unless a public key is given:
// then jose `jwtVerify` (ES256, iss, aud, exp/nbf) with a small verified-token LRU (a Map keyed by the token,
// 10,000 entries, each trusted until the token's exp).
//   node bench/peers/undici-forwarder.mjs <port> <upstream-url> [<public-key.pem> <issuer>]
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { importSPKI, jwtVerify } from 'jose';
import { Pool } from 'undici';

const [port, upstream, publicKeyFile, issuer] = process.argv.slice(2);
const pool = new Pool(upstream, { connections: 64, pipelining: 1 });
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host']);

function withoutHopByHop(headers) {
  const kept = {};
  for (const name in headers) if (!HOP_BY_HOP.has(name)) kept[name] = headers[name];
  return kept;
}

function forward(req, res) {
  const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  pool.stream(
    { path: req.url, method: req.method, headers: withoutHopByHop(req.headers), body: hasBody ? req : undefined },
    ({ statusCode, headers }) => {
      res.writeHead(statusCode, withoutHopByHop(headers));
      return res;
    },
    (error) => {
      if (!error) return;
      if (res.headersSent) res.destroy();
      else res.writeHead(502).end();
    },
  );
}

const LRU_SIZE = 10_000;
const verified = new Map(); // token -> exp in ms; insertion order is recency
const key = publicKeyFile ? await importSPKI(readFileSync(publicKeyFile, 'utf8'), 'ES256') : undefined;

async function authorized(authorization) {
  if (!authorization?.startsWith('Bearer ')) return false;
  const token = authorization.slice(7);
  const exp = verified.get(token);
  if (exp !== undefined) {
    verified.delete(token);
    if (exp <= Date.now()) return false;
    verified.set(token, exp);
    return true;
  }
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['ES256'], issuer, audience: issuer });
    if (typeof payload.exp === 'number') {
      if (verified.size >= LRU_SIZE) verified.delete(verified.keys().next().value);
      verified.set(token, payload.exp * 1000);
    }
    return true;
  } catch {
    return false;
  }
}

const refuse = (res) => res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' }).end('{"error":"invalid_token"}');

const handler = key
  ? (req, res) => {
      const authorization = req.headers.authorization;
      const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined;
      const exp = token === undefined ? undefined : verified.get(token);
      // The hot path stays synchronous: a cached, unexpired token is forwarded at once.
      if (exp !== undefined && exp > Date.now()) {
        verified.delete(token);
        verified.set(token, exp);
        forward(req, res);
        return;
      }
      authorized(authorization).then((ok) => (ok ? forward(req, res) : refuse(res)));
    }
  : forward;

createServer(handler).listen(Number(port), '127.0.0.1');
