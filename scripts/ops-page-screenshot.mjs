#!/usr/bin/env node
// `npm run docs:screenshot`: docs/images/ops-page.png, the operations page of a real gateway (the shipped policies
// and demo accounts, one policy added in report mode, a little traffic with refusals), taken with Debian's chromium
// through playwright-core. Nothing is downloaded; the gateway and its upstream listen on loopback only.
//   node scripts/ops-page-screenshot.mjs [OUTPUT.png]
import { randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { loadGatewayConfig, startGateway } from '../dist/index.js';
import { addressOf, startDemoUpstream } from '../dist/demo/upstream.js';
import { chromiumPath } from './check-test-prerequisites.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUTPUT = resolve(process.argv[2] ?? join(ROOT, 'docs', 'images', 'ops-page.png'));
const CHROMIUM = chromiumPath();
/** Debian's chromium, headless, with nothing that reaches the network on its own. */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

const REPORT_ONLY = `policies:
  - name: new-partner-guard
    kind: regex-protection
    description: A pattern being tried on live traffic before it is enforced.
    mode: report
    builtin: []
    patterns:
      - { name: partner-test-marker, pattern: 'test-partner' }
    apply_to: { path: false, query: true, json_body: none }
`;

const dir = await mkdtemp(join(tmpdir(), 'tg-ops-screenshot-'));
const upstream = await startDemoUpstream(0);
let gateway;
let browser;
try {
  await cp(join(ROOT, 'policies'), join(dir, 'policies'), { recursive: true });
  await writeFile(join(dir, 'policies', 'report-only.yaml'), REPORT_ONLY);
  const token = randomBytes(24).toString('base64url');
  await writeFile(join(dir, 'admin-token'), `${token}\n`);
  await writeFile(
    join(dir, 'gateway.yaml'),
    [
      'listen: { host: 127.0.0.1, port: 0 }',
      'admin: { host: 127.0.0.1, port: 0, token_file: ./admin-token }',
      `accounts: ${join(ROOT, 'accounts.yaml')}`,
      'environment: sandbox',
      'policies:',
      '  folder: ./policies',
      '  defaults: [injection-guard]',
      '  endpoints:',
      '    /oauth2/v1/token: [token-endpoint-spike-arrest]',
      'routes:',
      `  - { path: /business/score/v2/, upstream: "${addressOf(upstream)}", policies: [new-partner-guard, json-guard, per-client-spike-arrest] }`,
      'log: { level: warn }',
      '',
    ].join('\n'),
  );
  gateway = await startGateway({ config: await loadGatewayConfig(join(dir, 'gateway.yaml')), watchPolicies: false, watchConfig: false, logDestination: { write: () => undefined } });
  const tokens = await (
    await fetch(`${gateway.url}/oauth2/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'demo-user', password: 'demo-password', client_id: 'demo-app', client_secret: 'demo-app-secret' }),
    })
  ).json();
  const call = (query = '') =>
    fetch(`${gateway.url}/business/score/v2/directors${query}`, { headers: { authorization: `Bearer ${tokens.access_token}` } }).then((response) => response.arrayBuffer());
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));
  // Paced under per-client-spike-arrest's 30ps, as a well-behaved client would be.
  const traffic = async (round) => {
    for (let i = 0; i < 6 + (round % 3) * 3; i++) {
      await call(`?page=${i}`);
      await pause(40);
    }
    await call(`?name=${encodeURIComponent("x' or 1=1 --")}`);
    if (round % 2 === 0) await call('?tag=test-partner');
    await fetch(`${gateway.url}/business/score/v2/directors`).then((response) => response.arrayBuffer());
  };

  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1, colorScheme: 'light' });
  await traffic(0);
  await page.goto(`${gateway.adminUrl}/ops`);
  await page.fill('#token', token);
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#dashboard:not([hidden])');
  for (let round = 1; round <= 8; round++) {
    await traffic(round);
    await page.click('#refresh');
    await page.waitForFunction((expected) => document.querySelectorAll('#traffic svg polyline.requests')[0]?.getAttribute('points')?.split(' ').length >= expected, round);
  }
  await mkdir(dirname(OUTPUT), { recursive: true });
  await page.screenshot({ path: OUTPUT, fullPage: true });
  process.stdout.write(`written to ${OUTPUT}\n`);
} finally {
  await browser?.close();
  await gateway?.close();
  upstream.close();
  await rm(dir, { recursive: true, force: true });
}
