// Memory under a large revocation list and a full verified-token cache: a gateway on a throw-away redis-server,
// pinned to core 0, is given one million revoked entries the way other instances would publish them (ZADD into the
// revocations sorted set + PUBLISH on the revocation channel) and 100,000 distinct access tokens to verify and
// remember; its RSS and a protected-call sample are taken before and after. Loopback only; bounded in time.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import {
  backgroundLoad,
  BENCH_ACCOUNT,
  machine,
  machineLine,
  rssKiB,
  startNodeUpstream,
  startPinnedGateway,
  startRedis,
  withGroupCpu,
  writeBenchAccounts,
  writeResult,
  knob,
  isMainScript,
  runBenchmark,
} from './lib.mjs';
import { runWrk } from './load.mjs';
import { runDriver } from './token-endpoint.mjs';

const REVOCATIONS = knob('BENCH_MEMORY_REVOCATIONS', 1_000_000);
const TOKENS = knob('BENCH_MEMORY_TOKENS', 100_000);
const FILL_LIMIT_S = knob('BENCH_MEMORY_FILL_LIMIT', 90);
const SAMPLE_S = knob('BENCH_MEMORY_SAMPLE', 3);
const CHUNK = 20_000;
/** Publishing waits while the gateway's subscription has more than this queued in Redis (its limit is 32 MB). */
const MAX_QUEUED_BYTES = 4 << 20;
const CHAINS = 48;
/**
 * Refreshes per grant before a chain starts over with a password grant. The gateway's Redis rotation script reads and
 * decodes every record of the grant on each refresh (pruning expired ones; used tokens stay until they expire), so a
 * refresh costs O(refreshes the grant has seen): thousands of refreshes on one grant slow Redis down quadratically,
 * which is a refresh-throughput matter, not this benchmark's.
 */
const CHAIN_LENGTH = 250;
const [SERVER_CORE, CLIENT_CORE] = os.availableParallelism() >= 2 ? ['0', '1'] : ['0', '0'];
const PATH = '/business/score/v2/08041998';
const ENVIRONMENT = 'bench';
const GOAL_EXTRA_MB = 200;
const GOAL_THROUGHPUT_RATIO = 0.8;

const progress = (line) => process.stderr.write(`[memory] ${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Bytes Redis holds for subscribers that they have not read yet (`omem` of every pub/sub client). */
async function queuedForSubscribers(redis) {
  const list = await redis.client('LIST', 'TYPE', 'pubsub');
  return [...String(list).matchAll(/ omem=(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
}

const jtiOf = (token) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).jti;

export async function memory() {
  const startedAt = Date.now();
  const background = await backgroundLoad();
  const dir = await mkdtemp(join(os.tmpdir(), 'tg-bench-memory-'));
  // Redis beside the load generators, off the gateway's core.
  const redis = await startRedis({ cores: CLIENT_CORE });
  const servers = [];
  const publisher = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await publisher.connect();
    const upstream = await startNodeUpstream({ cores: CLIENT_CORE });
    servers.push(upstream.server);
    const accounts = await writeBenchAccounts(join(dir, 'accounts.yaml'));
    const kek = join(dir, 'kek');
    await writeFile(kek, randomBytes(32).toString('base64'), { mode: 0o600 });
    const gateway = await startPinnedGateway({
      dir,
      name: 'gateway',
      cores: SERVER_CORE,
      config: [
        'issuer: https://bench.example.com',
        `environment: ${ENVIRONMENT}`,
        // The periodic full reload of the revocation list is a separate cost; pushed past the run so that the
        // samples measure the lookups.
        `store: { redis: { url: "${redis.url}", resync_interval: 10m } }`,
        `keys: { encryption_key_file: ${kek} }`,
        `accounts: ${accounts}`,
        'log: { level: warn }',
        'routes:',
        `  - { path: /business/, upstream: "${upstream.url}" }`,
      ],
    });
    servers.push(gateway.server);
    const pid = gateway.server.pid;
    const grant = async () => {
      const response = await fetch(`${gateway.url}/oauth2/v1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'password', ...BENCH_ACCOUNT }),
      });
      if (response.status !== 200) throw new Error(`password grant answered ${response.status}`);
      return (await response.json()).access_token;
    };
    const call = async (token) => {
      const response = await fetch(`${gateway.url}${PATH}`, { headers: { authorization: `Bearer ${token}` } });
      await response.arrayBuffer();
      return response.status;
    };
    const token = await grant();
    const sentinel = await grant();
    if ((await call(token)) !== 200 || (await call(sentinel)) !== 200) throw new Error('fresh tokens refused');
    const sample = () => runWrk({ url: `${gateway.url}${PATH}`, headers: { authorization: `Bearer ${token}` }, connections: 50, durationS: SAMPLE_S, cores: CLIENT_CORE, serverPgid: pid });

    progress('warm-up');
    const warmUp = await runWrk({ url: `${gateway.url}${PATH}`, headers: { authorization: `Bearer ${token}` }, connections: 50, durationS: 2, cores: CLIENT_CORE });
    await sleep(1_000);
    const rssBefore = rssKiB(pid);
    const before = await sample();

    // One million revocations, as other instances publish them: ZADD + PUBLISH `<expiry ms> token:<22-char id>`.
    progress(`publishing ${REVOCATIONS.toLocaleString('en-US')} revocations`);
    const revocationKey = `tg:${ENVIRONMENT}:{revocations}`;
    const channel = `tg:${ENVIRONMENT}:revocations`;
    const expiresAt = Date.now() + 2 * 3600_000;
    const publishStartedAt = performance.now();
    let paused = 0;
    let maxQueued = 0;
    for (let sent = 0; sent < REVOCATIONS; ) {
      const count = Math.min(CHUNK, REVOCATIONS - sent);
      const ids = randomBytes(16 * count);
      const batch = publisher.pipeline();
      for (let i = 0; i < count; i++) {
        const member = `token:${ids.subarray(16 * i, 16 * i + 16).toString('base64url')}`;
        batch.zadd(revocationKey, expiresAt, member);
        batch.publish(channel, `${expiresAt} ${member}`);
      }
      const results = await batch.exec();
      const failed = results?.find(([error]) => error);
      if (failed) throw failed[0];
      sent += count;
      for (let queued = await queuedForSubscribers(publisher); ; queued = await queuedForSubscribers(publisher)) {
        maxQueued = Math.max(maxQueued, queued);
        if (queued <= MAX_QUEUED_BYTES) break;
        paused++;
        await sleep(20);
      }
    }
    const publishedS = (performance.now() - publishStartedAt) / 1000;
    // The last one revokes a token this benchmark holds: pub/sub keeps order, so once the gateway refuses it, it has
    // taken in every message before it.
    await publisher.zadd(revocationKey, expiresAt, `token:${jtiOf(sentinel)}`);
    await publisher.publish(channel, `${expiresAt} token:${jtiOf(sentinel)}`);
    const sentinelDeadline = Date.now() + 60_000;
    while ((await call(sentinel)) === 200) {
      if (Date.now() > sentinelDeadline) throw new Error('the gateway did not take in the revocations within 60 s');
      await sleep(50);
    }
    const publishS = (performance.now() - publishStartedAt) / 1000;
    const inRedis = await publisher.zcard(revocationKey);
    if ((await call(token)) !== 200) throw new Error('the sampling token was refused');
    const rssRevoked = rssKiB(pid);

    // 100,000 distinct access tokens, each verified and remembered: refresh chains, one protected call per new token.
    progress(`verifying ${TOKENS.toLocaleString('en-US')} distinct access tokens`);
    const { result: fill, cpu: fillCpu } = await withGroupCpu(
      pid,
      () =>
        runDriver(
          CLIENT_CORE,
          'refresh-chains',
          { url: gateway.url, chains: CHAINS, seconds: FILL_LIMIT_S, maxRefreshes: TOKENS, protectedPath: PATH, chainLength: CHAIN_LENGTH },
          (FILL_LIMIT_S + 60) * 1000,
        ),
      { core: SERVER_CORE },
    );
    await sleep(1_000);
    const rssAfter = rssKiB(pid);
    const after = await sample();

    // ----- report
    const facts = machine();
    const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a');
    const mb = (kib) => fmt(kib / 1024, 1);
    const extraMb = (rssAfter - rssBefore) / 1024;
    const ratio = after.rps / before.rps;
    const complete = inRedis >= REVOCATIONS && fill.calls >= TOKENS && fill.callErrors === 0 && fill.errors === 0;
    const clean = [before, after].every((r) => r.non2xx === 0 && r.socketErrors === 0);
    const met = (ok) => (ok ? 'met' : '**not met**');
    const markdown = [
      '# Memory: a million revocations and a full verified-token cache',
      '',
      machineLine(facts, [`Redis ${facts.redis}`]),
      `Machine busy before the start (other processes): ${Math.round(background * 100)}% of all cores${background > 0.1 ? ' (**not idle: the figures below shared the machine**)' : ''}.`,
      '',
      `One \`token-gateway serve\` on a throw-away redis-server (\`store: { redis: ... }\`, \`environment: ${ENVIRONMENT}\`, KEK from a file,`,
      `\`resync_interval: 10m\` so that the periodic full reload stays out of the samples), \`log.level: warn\`, pinned to core ${SERVER_CORE};`,
      `wrk, the Node driver, redis-server and a Node \`http\` upstream (300-byte body) pinned to core ${CLIENT_CORE}. RSS is \`VmRSS\` of the gateway process`,
      'from /proc/<pid>/status, read after 1 s idle. The protected-call samples are `wrk -t1 -c50` for',
      `${SAMPLE_S} s with one token, after a 2 s warm-up (${fmt(warmUp.requests)} calls).`,
      '',
      '## Goals',
      '',
      '| goal | figure | target | result |',
      '|---|---:|---:|---|',
      `| extra RSS for ${fmt(REVOCATIONS)} revocations + ${fmt(TOKENS)} cached tokens | ${fmt(extraMb, 1)} MB${complete ? '' : ' (incomplete fill!)'} | < ${GOAL_EXTRA_MB} MB | ${met(complete && extraMb < GOAL_EXTRA_MB)} |`,
      `| lookups stay O(1): protected req/s after / before | ${fmt(after.rps)} / ${fmt(before.rps)} = ${fmt(ratio, 2)}${clean ? '' : ' (errors!)'} | within noise (>= ${GOAL_THROUGHPUT_RATIO}) | ${met(clean && ratio >= GOAL_THROUGHPUT_RATIO)} |`,
      '',
      '## Memory',
      '',
      '| moment | RSS | extra over baseline |',
      '|---|---:|---:|',
      `| baseline (after the warm-up) | ${mb(rssBefore)} MB | |`,
      `| + ${fmt(REVOCATIONS)} revocations taken in | ${mb(rssRevoked)} MB | ${mb(rssRevoked - rssBefore)} MB |`,
      `| + ${fmt(fill.calls)} distinct access tokens verified and remembered | ${mb(rssAfter)} MB | ${mb(rssAfter - rssBefore)} MB |`,
      '',
      '## Protected calls before and after',
      '',
      '| sample | req/s | p50 ms | p99 ms | requests | non-2xx / socket errors | gateway CPU µs/req |',
      '|---|---:|---:|---:|---:|---:|---:|',
      `| before | ${fmt(before.rps)} | ${fmt(before.p50Ms, 2)} | ${fmt(before.p99Ms, 2)} | ${fmt(before.requests)} | ${before.non2xx} / ${before.socketErrors} | ${fmt(before.cpuUsPerRequest, 1)} |`,
      `| after | ${fmt(after.rps)} | ${fmt(after.p50Ms, 2)} | ${fmt(after.p99Ms, 2)} | ${fmt(after.requests)} | ${after.non2xx} / ${after.socketErrors} | ${fmt(after.cpuUsPerRequest, 1)} |`,
      '',
      '## How the state was made',
      '',
      `**Revocations**: ${fmt(REVOCATIONS)} members \`token:<22-character random id>\` with an expiry two hours ahead (ms) as score,`,
      `written as the gateway writes them: \`ZADD ${revocationKey}\` and \`PUBLISH ${channel} "<expiry> <member>"\`, pipelined`,
      `${fmt(CHUNK)} at a time with ioredis; after each chunk publishing waited while Redis held more than ${fmt(MAX_QUEUED_BYTES / 2 ** 20)} MB unread for`,
      `subscribers (\`CLIENT LIST TYPE pubsub\`, omem; it waited ${fmt(paused)} times, at most ${fmt(maxQueued / 2 ** 20, 1)} MB seen queued), so the gateway's`,
      `subscription stayed clear of Redis' 32 MB pub/sub limit. Publishing took ${fmt(publishedS, 1)} s. Last came a revocation of a token this`,
      `benchmark held; the gateway refused it ${fmt(publishS, 1)} s after publishing started, and pub/sub keeps order, so by then it had`,
      `taken in every entry (${fmt(inRedis)} in the sorted set); a backlog between the two sits in socket buffers and the`,
      'gateway\'s Redis client, not in Redis.',
      '',
      `**Tokens**: a Node driver with ${CHAINS} refresh chains (undici \`Pool\`, keep-alive), each refresh returning a new access`,
      `token, which was then used once on \`GET ${PATH}\`: ${fmt(fill.refreshes)} refreshes and ${fmt(fill.calls)} protected calls in ${fmt(fill.seconds, 1)} s,`,
      `each chain starting over with a password grant every ${CHAIN_LENGTH} refreshes (${fmt(fill.passwordGrants)} password grants in all): the gateway's`,
      'Redis rotation script reads and decodes every record of the grant on each refresh (used tokens stay until they',
      'expire), so one grant refreshed thousands of times makes each refresh slower (a first run with unbounded chains made',
      '36,129 tokens in 70 s, falling behind as the chains grew).',
      `Meanwhile the gateway used ${fmt(fillCpu.share * 100)}% of core ${SERVER_CORE} (${fmt(fillCpu.us / Math.max(1, fill.calls))} µs per token: a refresh, a`,
      `signature verification, a forwarded call, and a share of the password grants); other processes ${fmt(fillCpu.othersOnCore * 100)}%.`,
      `${fmt(fill.callErrors)} calls not answered 200, ${fmt(fill.errors)} refreshes not answered 200. Each call verified its token's`,
      'signature and put it in the verified-token cache (its bound is 100,000 entries, first in first out; the warm-up\'s',
      'tokens were the first to go).',
      '',
      `Knobs: \`BENCH_MEMORY_REVOCATIONS\` (${fmt(REVOCATIONS)}), \`BENCH_MEMORY_TOKENS\` (${fmt(TOKENS)}), \`BENCH_MEMORY_FILL_LIMIT\``,
      `(${FILL_LIMIT_S} s for the tokens), \`BENCH_MEMORY_SAMPLE\` (${SAMPLE_S} s). This run took ${fmt((Date.now() - startedAt) / 1000)} s.`,
      '',
    ].join('\n');
    const file = await writeResult('memory', markdown);
    return { markdown, file };
  } finally {
    publisher.disconnect();
    for (const server of servers.reverse()) await server.stop();
    redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (isMainScript(import.meta.url)) await runBenchmark(memory);
