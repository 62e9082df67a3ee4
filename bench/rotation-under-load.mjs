// Key rotations under steady traffic through three instances on one Redis: how many valid tokens are refused per
// rotation (goal: 0), and how long before its signsFrom each new key was in every instance's JWKS (goal: earlier by
// at least the JWKS cache lifetime). Three real gateway processes, one real redis-server; bounded in count and time.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { jwksMaxAgeSeconds, publicationLeadMs } from '../dist/keys/publication.js';
import { BENCH_ACCOUNT, knob, machine, machineLine, percentile, startGateway, startRedis, writeBenchAccounts, writeResult, isMainScript, runBenchmark } from './lib.mjs';

const ROTATIONS = knob('BENCH_ROTATIONS', 6);
/** Short, so that a rotation's successor is old enough to sign at once a few seconds later; the lead scales with it. */
const INTERVAL_MS = knob('BENCH_ROTATION_INTERVAL', 10_000);
const JWKS_POLL_MS = 10;
const CALLERS = 4;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const kidOf = (token) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).kid;

export async function rotationUnderLoad() {
  const dir = await mkdtemp(join(tmpdir(), 'tg-bench-'));
  const upstream = createServer((_req, res) => res.end('{"ok":true}'));
  await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const redis = await startRedis();
  const gateways = [];
  let on = true;
  const loops = [];
  try {
    await writeBenchAccounts(join(dir, 'accounts.yaml'));
    const { password, client_secret: secret } = BENCH_ACCOUNT;
    const config = [
      'listen: { host: 127.0.0.1, port: 0 }',
      'admin: { host: 127.0.0.1, port: 0 }',
      'issuer: https://bench.example.com',
      'environment: bench',
      `store: ${redis.url}`,
      `keys: { rotation_interval: ${INTERVAL_MS}ms }`,
      'accounts: ./accounts.yaml',
      'log: { level: info }',
      'routes:',
      `  - { path: /business/, upstream: "http://127.0.0.1:${upstream.address().port}" }`,
    ].join('\n');
    await writeFile(join(dir, 'gateway.yaml'), config);
    const env = { TOKEN_GATEWAY_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    for (let i = 0; i < 3; i++) gateways.push(await startGateway(join(dir, 'gateway.yaml'), env));

    // When each kid was first seen in each instance's JWKS.
    const firstSeen = gateways.map(() => new Map());
    for (const [i, gateway] of gateways.entries()) {
      loops.push(
        (async () => {
          while (on) {
            const { keys } = await (await fetch(`${gateway.url}/oauth2/v1/keys`)).json();
            for (const { kid } of keys) if (!firstSeen[i].has(kid)) firstSeen[i].set(kid, Date.now());
            await sleep(JWKS_POLL_MS);
          }
        })(),
      );
    }

    // Steady traffic: one refresh chain per instance, each new token checked at once on all three, and callers
    // replaying the newest tokens through all three.
    const client = { client_id: 'bench-app', client_secret: secret };
    const issued = [];
    const outcomes = []; // { at, kid, status }
    const check = async (token, kid) => {
      await Promise.all(
        gateways.map(async (gateway) => {
          const at = Date.now();
          const response = await fetch(`${gateway.url}/business/x`, { headers: { authorization: `Bearer ${token}` } });
          await response.arrayBuffer();
          outcomes.push({ at, kid, status: response.status });
        }),
      );
    };
    for (const [i] of gateways.entries()) {
      loops.push(
        (async () => {
          const login = await fetch(`${gateways[i].url}/oauth2/v1/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ username: 'bench', password, ...client }),
          });
          let tokens = await login.json();
          for (let n = 0; on; n++) {
            const response = await fetch(`${gateways[(i + n) % 3].url}/oauth2/v1/token`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', grant_type: 'refresh_token', refresh_token: tokens.refresh_token, ...client },
            });
            if (response.status !== 200) throw new Error(`refresh grant answered ${response.status}`);
            tokens = await response.json();
            const kid = kidOf(tokens.access_token);
            issued.push({ at: Date.now(), kid, token: tokens.access_token });
            await check(tokens.access_token, kid);
          }
        })(),
      );
    }
    for (let c = 0; c < CALLERS; c++) {
      loops.push(
        (async () => {
          while (on) {
            const recent = issued.slice(-4);
            await Promise.all(recent.map(({ token, kid }) => check(token, kid)));
            await sleep(recent.length === 0 ? 20 : 2);
          }
        })(),
      );
    }

    // Rotations far enough apart that each one's successor (published by the one before) may sign at once.
    const leadMs = publicationLeadMs(INTERVAL_MS);
    const maxAgeMs = jwksMaxAgeSeconds(INTERVAL_MS) * 1000;
    const rotations = [];
    await sleep(leadMs + 500);
    for (let r = 0; r < ROTATIONS; r++) {
      process.stderr.write(`rotation ${r + 1} of ${ROTATIONS}\n`);
      const admin = gateways[r % 3].adminUrl;
      const started = Date.now();
      const response = await fetch(`${admin}/admin/v1/keys/rotate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const body = await response.json();
      rotations.push({ status: response.status, answeredIn: Date.now() - started, kid: body.kid, signsFrom: Date.parse(body.signsFrom), startedAt: started, confirmed: body.confirmed?.length ?? 0 });
      await sleep(leadMs + 500);
    }
    on = false;
    await Promise.all(loops);

    const rows = rotations.map((rotation, r) => {
      const until = rotations[r + 1]?.startedAt ?? Infinity;
      const window = outcomes.filter(({ at }) => at >= rotation.startedAt && at < until);
      const publishedEverywhere = Math.max(...firstSeen.map((seen) => seen.get(rotation.kid) ?? Infinity));
      return {
        ...rotation,
        calls: window.length,
        refused: window.filter(({ status }) => status !== 200).length,
        publishedMinusSignsFrom: publishedEverywhere - rotation.signsFrom,
        firstUse: issued.find(({ kid }) => kid === rotation.kid)?.at,
      };
    });
    const facts = machine();
    const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
    const answered = rows.map((row) => row.answeredIn).sort((a, b) => a - b);
    const markdown = [
      '# Key rotation under load, three instances',
      '',
      machineLine(facts, [`Redis ${facts.redis}`]),
      '',
      `Three \`token-gateway serve\` processes on one local redis-server, \`keys.rotation_interval: ${INTERVAL_MS} ms\`, so the JWKS`,
      `max-age is ${maxAgeMs / 1000} s and a key may sign ${leadMs / 1000} s after it was published. Steady traffic throughout: one refresh`,
      'chain per instance (each new access token checked at once on all three instances) and callers replaying the newest',
      `tokens through all three. ${ROTATIONS} rotations (\`POST /admin/v1/keys/rotate\`, on each instance in turn), ${seconds(leadMs + 500)} apart, so`,
      'that each promotes the key the one before published. Per rotation: protected calls from its start to the next',
      "rotation's, how many were refused (every token is valid: nothing is dropped), how long the call took to answer",
      '(every instance acknowledges the new ring first), and the time from the new key\'s `signsFrom` to the moment it',
      `was seen in every instance's JWKS (polled every ${JWKS_POLL_MS} ms): negative when it was published before it signed.`,
      '',
      '| rotation | answered | calls | refused valid tokens (goal 0) | in every JWKS, from signsFrom (goal <= -max-age) | confirmed by |',
      '|---:|---:|---:|---:|---:|---:|',
      ...rows.map(
        (row, r) =>
          `| ${r + 1} | ${row.status} in ${row.answeredIn} ms | ${row.calls} | ${row.refused} | ${seconds(row.publishedMinusSignsFrom)} ` +
          `${row.publishedMinusSignsFrom <= -maxAgeMs ? '(met)' : '(MISSED)'} | ${row.confirmed} of 3 |`,
      ),
      '',
      `Total: ${rows.reduce((sum, row) => sum + row.calls, 0)} protected calls, ${rows.reduce((sum, row) => sum + row.refused, 0)} refused; ` +
        `${issued.length} tokens issued; rotation answered in p50 ${percentile(answered, 50)} ms, max ${answered.at(-1)} ms.`,
      '',
    ].join('\n');
    const file = await writeResult('rotation-under-load', markdown);
    return { rows, file, markdown };
  } finally {
    on = false;
    await Promise.allSettled(loops);
    for (const gateway of gateways) gateway.stop();
    redis.stop();
    upstream.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (isMainScript(import.meta.url)) await runBenchmark(rotationUnderLoad);
