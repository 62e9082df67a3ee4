// How long after instance A accepts a revocation does instance B refuse the token?
// Two real gateway processes on one real redis-server; bounded in count and time.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_ACCOUNT, knob, machine, machineLine, percentile, startGateway, startRedis, writeBenchAccounts, writeResult, isMainScript, runBenchmark } from './lib.mjs';

const REVOCATIONS = knob('BENCH_REVOCATIONS', 200);
const POLL_LIMIT_MS = 5_000;
const GOAL_P99_MS = 100;

export async function revocationPropagation() {
  const dir = await mkdtemp(join(tmpdir(), 'tg-bench-'));
  const upstream = createServer((_req, res) => res.end('{"ok":true}'));
  await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const redis = await startRedis();
  const gateways = [];
  try {
    await writeBenchAccounts(join(dir, 'accounts.yaml'));
    const { password, client_secret: secret } = BENCH_ACCOUNT;
    const config = [
      'listen: { host: 127.0.0.1, port: 0 }',
      'admin: { port: 0 }',
      'issuer: https://bench.example.com',
      'environment: bench',
      `store: ${redis.url}`,
      'accounts: ./accounts.yaml',
      'log: { level: info }',
      'routes:',
      `  - { path: /business/, upstream: "http://127.0.0.1:${upstream.address().port}" }`,
    ].join('\n');
    await writeFile(join(dir, 'gateway.yaml'), config);
    const env = { TOKEN_GATEWAY_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    const a = await startGateway(join(dir, 'gateway.yaml'), env);
    gateways.push(a);
    const b = await startGateway(join(dir, 'gateway.yaml'), env);
    gateways.push(b);

    const client = { client_id: 'bench-app', client_secret: secret };
    const latencies = [];
    let alreadyRefused = 0;
    for (let i = 0; i < REVOCATIONS; i++) {
      const grant = await fetch(`${a.url}/oauth2/v1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'password', username: 'bench', password, ...client }),
      });
      const { access_token: token } = await grant.json();
      const call = () => fetch(`${b.url}/business/x`, { headers: { authorization: `Bearer ${token}` } }).then((r) => (r.arrayBuffer(), r.status));
      if ((await call()) !== 200) throw new Error('fresh token refused on B');
      const revoked = await fetch(`${a.url}/oauth2/v1/revokeToken`, { method: 'POST', headers: { token, ...client } });
      const acceptedAt = performance.now();
      if (revoked.status !== 200) throw new Error(`revocation answered ${revoked.status}`);
      let status = await call();
      if (status === 401) alreadyRefused++;
      while (status === 200 && performance.now() - acceptedAt < POLL_LIMIT_MS) status = await call();
      if (status !== 401) throw new Error(`B still accepts a token ${POLL_LIMIT_MS} ms after A revoked it`);
      latencies.push(performance.now() - acceptedAt);
    }
    latencies.sort((x, y) => x - y);
    const row = {
      revocations: latencies.length,
      alreadyRefused,
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      p99: percentile(latencies, 99),
      max: latencies.at(-1),
    };
    const facts = machine();
    const ms = (value) => `${value.toFixed(1)} ms`;
    const markdown = [
      '# Revocation propagation between two instances',
      '',
      machineLine(facts, [`Redis ${facts.redis}`]),
      '',
      'Two `token-gateway serve` processes (A, B) on one local redis-server. For each of the revocations:',
      'a token is issued on A and accepted by B, revoked on A, then B is asked again and again until it refuses.',
      'The figure is the time from A answering 200 to the revocation until B first refuses',
      '(first check included: it costs about one protected call, so figures under ~1 ms mean "already refused").',
      '',
      '| revocations | refused on first check | p50 | p90 | p99 | max | goal p99 |',
      '|---:|---:|---:|---:|---:|---:|---:|',
      `| ${row.revocations} | ${row.alreadyRefused} | ${ms(row.p50)} | ${ms(row.p90)} | ${ms(row.p99)} | ${ms(row.max)} | < ${GOAL_P99_MS} ms ${row.p99 < GOAL_P99_MS ? '(met)' : '(MISSED)'} |`,
      '',
    ].join('\n');
    const file = await writeResult('revocation-propagation', markdown);
    return { row, file, markdown };
  } finally {
    for (const gateway of gateways) gateway.stop();
    redis.stop();
    upstream.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (isMainScript(import.meta.url)) await runBenchmark(revocationPropagation);
