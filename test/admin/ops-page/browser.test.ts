import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath } from '../../../scripts/check-test-prerequisites.mjs';
import { APP, USER } from '../../helpers/accounts.js';
import { bootGateway, issueTokens, type TestGateway } from '../../helpers/gateway.js';

/**
 * The operations page in a real headless browser: Debian's chromium, driven
 * by playwright-core (which downloads nothing), against a real gateway with
 * an admin token and the policies the repository ships.
 */

const CHROMIUM = chromiumPath();
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const ADMIN_TOKEN = randomBytes(32).toString('base64url');
const INJECTION = "x' or 1=1 --";

let dir: string;
let tg: TestGateway;
let browser: Browser;
let page: Page;
const problems: string[] = [];
const requested: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the operations page test needs chromium at ${CHROMIUM} (Debian: apt-get install chromium, or set CHROMIUM_PATH; .ci/run installs it)`);
  }
  dir = await mkdtemp(join(tmpdir(), 'tg-ops-browser-'));
  await writeFile(join(dir, 'admin-token'), `${ADMIN_TOKEN}\n`);
  tg = await bootGateway({
    config: (upstream) => ({
      admin: { host: '127.0.0.1', port: 0, token_file: join(dir, 'admin-token') },
      // The repository's own policies folder, attached as gateway.yaml attaches it.
      policies: { folder: resolve('policies'), defaults: ['injection-guard'], endpoints: { '/oauth2/v1/token': ['token-endpoint-spike-arrest'] } },
      routes: [{ path: '/business/score/v2/', upstream, timeout: '2s', policies: ['json-guard', 'per-client-spike-arrest'] }],
    }),
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // The reads refused before the token is given are expected (the page asks for it then); nothing else may fail.
  page.on('console', (message) => message.type() === 'error' && !/status of 401 \(Unauthorized\)/.test(message.text()) && problems.push(message.text()));
  page.on('request', (request) => requested.push(request.url()));
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
});

afterAll(async () => {
  await browser?.close();
  await tg?.close();
  await rm(dir, { recursive: true, force: true });
});

const text = (selector: string) => page.locator(selector).innerText();

describe('the operations page in chromium', () => {
  it('asks for the admin token and shows nothing before it is given', async () => {
    const response = await page.goto(`${tg.gateway.adminUrl}/ops`);
    expect(response?.status()).toBe(200);
    await page.locator('#login').waitFor({ state: 'visible' });
    expect(await page.locator('#dashboard').isHidden()).toBe(true);
    expect(await text('#login')).toContain('admin.token_file');
  });

  it('says so when the token is wrong', async () => {
    await page.fill('#token', 'not-the-admin-token');
    await page.click('#login-form button[type=submit]');
    await expect.poll(() => text('#login-reason')).toContain('refused this token (401)');
    expect(await page.locator('#dashboard').isHidden()).toBe(true);
  });

  it('shows the signing keys and the shipped policies once the token is given', async () => {
    await page.fill('#token', ADMIN_TOKEN);
    await page.click('#login-form button[type=submit]');
    await page.locator('#dashboard').waitFor({ state: 'visible' });
    const jwks = (await (await fetch(`${tg.url}/oauth2/v1/keys`)).json()) as { keys: Array<{ kid: string }> };
    const keys = await text('#keys');
    for (const { kid } of jwks.keys) expect(keys).toContain(kid);
    expect(keys).toMatch(/signing/);
    const chains = await text('#chains');
    for (const name of ['injection-guard', 'json-guard', 'per-client-spike-arrest', 'token-endpoint-spike-arrest']) expect(chains).toContain(name);
    expect(await page.locator('[data-chain="route /business/score/v2/"] tr[data-policy]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-policy')))).toEqual([
      'injection-guard',
      'json-guard',
      'per-client-spike-arrest',
    ]);
    expect(await text('#summary')).toMatch(/store\s+memory up/);
  });

  it('shows a refusal sent to the client listener in the recent refusals, and the route in the traffic', async () => {
    const { access_token } = await issueTokens(tg.url);
    const refused = await fetch(`${tg.url}/business/score/v2/directors?name=${encodeURIComponent(INJECTION)}`, { headers: { authorization: `Bearer ${access_token}` } });
    expect(refused.status).toBe(401);
    await page.click('#refresh');
    await expect.poll(() => text('#refusals'), { timeout: 5_000 }).toContain('injection-guard (regex-protection)');
    const row = page.locator('#refusals tr[data-policy="injection-guard"]').first();
    expect(await row.innerText()).toMatch(/\/business\/score\/v2\/[\s\S]*refused[\s\S]*401 REGEX_THREAT[\s\S]*127\.0\.0\.1/);
    expect(await text('#traffic')).toContain('/business/score/v2/');
    expect(await page.locator('#traffic svg.spark').count()).toBeGreaterThan(0);
  });

  it('never shows a token, a secret or what the refused request carried', async () => {
    const { access_token, refresh_token } = await issueTokens(tg.url);
    await page.click('#refresh');
    await page.locator('#dashboard').waitFor({ state: 'visible' });
    const shown = `${await page.locator('body').innerText()}\n${await page.content()}`;
    for (const secret of [ADMIN_TOKEN, access_token, refresh_token, APP.client_secret, USER.password, INJECTION, encodeURIComponent(INJECTION)]) {
      expect(shown).not.toContain(secret);
    }
    expect(await page.inputValue('#token')).toBe('');
  });

  it('loads nothing from elsewhere and breaks no rule of its CSP', async () => {
    expect(problems).toEqual([]);
    expect(requested.filter((url) => !url.startsWith(`${tg.gateway.adminUrl}/`))).toEqual([]);
    expect(new Set(requested.map((url) => new URL(url).pathname))).toEqual(
      new Set(['/ops', '/ops/ops.js', '/ops/ops.css', '/admin/v1/status', '/admin/v1/traffic', '/admin/v1/policies', '/admin/v1/refusals/recent', '/admin/v1/keys']),
    );
  });

  it('can be photographed (npm run docs:screenshot writes docs/images/ops-page.png the same way)', async () => {
    const file = join(dir, 'ops-page.png');
    await page.screenshot({ path: file, fullPage: true });
    expect((await stat(file)).size).toBeGreaterThan(10_000);
  });

  it('forgets the token on request', async () => {
    await page.click('#forget');
    await page.locator('#login').waitFor({ state: 'visible' });
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(await page.locator('#keys tbody tr').count()).toBe(0);
  });
});
