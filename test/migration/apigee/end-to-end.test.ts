import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { accountsYaml } from '../../helpers/accounts.js';
import { ManualClock } from '../../helpers/clock.js';
import { bootGateway, errorOf, issueTokens, passwordGrant, type TestGateway } from '../../helpers/gateway.js';
import { runCli, type CliOutcome } from '../../helpers/processes.js';

/**
 * Import -> check -> serve, on the fixture bundles (test/fixtures/apigee):
 * the API proxy business-score-v2 (a folder), the shared flow
 * threat-protection it calls (zipped here, as Apigee exports it) and the
 * token proxy oauth (a folder). Each row of VERDICTS is a request and the
 * verdict Apigee's policies give it, rendered as this service renders them
 * (SPEC 7); docs/migrating-from-apigee.md has the same table.
 */
const FIXTURES = 'test/fixtures/apigee';

async function zipFolder(folder: string, into: string): Promise<void> {
  const files: Record<string, Uint8Array> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else files[relative(folder, path)] = await readFile(path);
    }
  };
  await walk(folder);
  await writeFile(into, zipSync(files));
}

interface Row {
  readonly case: string;
  readonly path: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly token?: false;
  /** 200, or the refusal: status and errorCode. */
  readonly verdict: 200 | readonly [number, string];
}

const JSON_TYPE = { 'content-type': 'application/json' };

// The order matters only for the spike arrest rows, which share one counter (identifier: all, 1pm).
const VERDICTS: readonly Row[] = [
  { case: 'a clean read', path: '/business/score/v2/directors?q=smith', verdict: 200 },
  { case: 'SQL in the q parameter (RE-Common, QueryParam q)', path: "/business/score/v2/directors?q=1'%20or%201=1", verdict: [401, 'REGEX_THREAT'] },
  { case: 'upper-case OR in q: Java patterns are case-sensitive', path: '/business/score/v2/directors?q=1%20OR%201', verdict: 200 },
  { case: '"or" inside a word in q (\\b)', path: '/business/score/v2/directors?q=Oregon', verdict: 200 },
  { case: 'SQL in another parameter, which RE-Common does not test', path: "/business/score/v2/directors?name=1'%20or%201=1", verdict: 200 },
  { case: 'a script tag in X-Customer-Reference (RE-Common, Header)', path: '/business/score/v2/directors', headers: { 'X-Customer-Reference': '<script>alert(1)</script>' }, verdict: [401, 'REGEX_THREAT'] },
  { case: 'an internal path under directors (RE-Directors, URIPath with $)', path: '/business/score/v2/directors/internal', verdict: [401, 'REGEX_THREAT'] },
  { case: 'an internal path elsewhere: RE-Directors runs on the directors flow only', path: '/business/score/v2/scores/internal', verdict: 200 },
  { case: 'a clean JSON body', path: '/business/score/v2/directors', method: 'POST', headers: JSON_TYPE, body: '{"name":"Acme","filter":{"role":"owner"}}', verdict: 200 },
  { case: 'drop table in $.name (RE-Common, JSONPath, (?i))', path: '/business/score/v2/directors', method: 'POST', headers: JSON_TYPE, body: '{"name":"x; DROP TABLE users"}', verdict: [401, 'REGEX_THREAT'] },
  { case: 'an object in $.filter, tested as its JSON text (RE-Directors)', path: '/business/score/v2/directors', method: 'POST', headers: JSON_TYPE, body: '{"filter":{"role":"admin"}}', verdict: [401, 'REGEX_THREAT'] },
  { case: 'JSON nested deeper than ContainerDepth 4', path: '/business/score/v2/scores', method: 'POST', headers: JSON_TYPE, body: '{"a":{"b":{"c":{"d":{}}}}}', verdict: [401, 'JSON_THREAT'] },
  { case: 'an object of 6 entries (ObjectEntryCount 5)', path: '/business/score/v2/scores', method: 'POST', headers: JSON_TYPE, body: '{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6}', verdict: [401, 'JSON_THREAT'] },
  { case: 'an array of 6 elements (ArrayElementCount 5)', path: '/business/score/v2/scores', method: 'POST', headers: JSON_TYPE, body: '[1,2,3,4,5,6]', verdict: [401, 'JSON_THREAT'] },
  { case: 'a 21-character name (ObjectEntryNameLength 20)', path: '/business/score/v2/scores', method: 'POST', headers: JSON_TYPE, body: `{"${'n'.repeat(21)}":1}`, verdict: [401, 'JSON_THREAT'] },
  { case: 'a 51-character string (StringValueLength 50)', path: '/business/score/v2/scores', method: 'POST', headers: JSON_TYPE, body: `{"s":"${'x'.repeat(51)}"}`, verdict: [401, 'JSON_THREAT'] },
  { case: 'malformed JSON (Apigee\'s parser refuses it)', path: '/business/score/v2/scores', method: 'POST', headers: JSON_TYPE, body: '{"name":', verdict: [401, 'JSON_THREAT'] },
  { case: 'a denied partner subnet (AC-Partners, DENY 198.51.100.0/24)', path: '/business/score/v2/scores', headers: { 'X-Forwarded-For': '198.51.100.7' }, verdict: [403, 'IP_RANGE_FORBIDDEN'] },
  { case: 'an address no rule holds (noRuleMatchAction DENY)', path: '/business/score/v2/scores', headers: { 'X-Forwarded-For': '192.0.2.1' }, verdict: [403, 'IP_RANGE_FORBIDDEN'] },
  { case: 'an allowed partner subnet (ALLOW 203.0.113.0/24)', path: '/business/score/v2/scores', headers: { 'X-Forwarded-For': '203.0.113.9' }, verdict: 200 },
  { case: 'no access token (VerifyAccessToken)', path: '/business/score/v2/scores', token: false, verdict: [401, 'AUTHENTICATION_REQUIRED'] },
  { case: 'the first bulk export of the minute (SA-Bulk, 1pm, no Identifier)', path: '/business/score/v2/bulk/a', verdict: 200 },
  { case: 'a second bulk export in the same minute, by anyone', path: '/business/score/v2/bulk/b', headers: { 'X-Forwarded-For': '203.0.113.9' }, verdict: [401, 'SPIKE_ARREST'] },
];

describe('import apigee, end to end: the imported gateway gives Apigee\'s verdicts', () => {
  let work: string;
  let imported: CliOutcome;
  let checked: CliOutcome;
  let gateway: TestGateway;
  let accessToken: string;
  let expiresIn: string;
  const clock = new ManualClock();

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'tg-apigee-'));
    await zipFolder(join(FIXTURES, 'threat-protection'), join(work, 'threat-protection.zip'));
    const policies = join(work, 'policies');
    imported = await runCli(['import', 'apigee', join(FIXTURES, 'score-v2'), join(work, 'threat-protection.zip'), join(FIXTURES, 'oauth'), '--out', policies]);
    const keys = parse(imported.stdout) as { tokens: Record<string, string>; policies: Record<string, unknown>; routes: Array<Record<string, unknown>> };
    const config = (upstream: string) => ({
      tokens: keys.tokens,
      policies: keys.policies,
      routes: keys.routes.map((route) => ({ ...route, upstream })),
      // The test client is the proxy in front: its X-Forwarded-For names the partner's address.
      trusted_proxies: ['127.0.0.1'],
    });
    await writeFile(join(work, 'accounts.yaml'), await accountsYaml());
    await writeFile(join(work, 'gateway.yaml'), stringify({ accounts: './accounts.yaml', ...config('http://127.0.0.1:9') }));
    checked = await runCli(['check', '--config', join(work, 'gateway.yaml')]);
    gateway = await bootGateway({ config: config, clock });
    ({ access_token: accessToken, expires_in: expiresIn } = await issueTokens(gateway.url));
  });

  afterAll(async () => {
    await gateway?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('imports the three bundles completely (exit 0) and says so', () => {
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(/not translated \(0\):/);
    expect(imported.stderr).toMatch(/import complete/);
  });

  it('writes output that token-gateway check accepts', () => {
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/3 routes/);
  });

  it('carries the token lifetimes of GenerateAccessToken over', () => {
    expect(expiresIn).toBe('1800');
  });

  it('smooths token requests as SA-Token did (600pm: one per 100 ms window, per client address)', async () => {
    expect(await errorOf(await passwordGrant(gateway.url))).toMatchObject({ status: 401, errorCode: 'SPIKE_ARREST' });
    clock.advance(100);
    expect((await passwordGrant(gateway.url)).status).toBe(200);
  });

  it.each(VERDICTS.map((row) => [row.case, row] as const))('%s', async (_case, row) => {
    const headers: Record<string, string> = { ...row.headers, ...(row.token === false ? {} : { authorization: `Bearer ${accessToken}` }) };
    const response = await fetch(`${gateway.url}${row.path}`, { method: row.method ?? 'GET', headers, body: row.body });
    if (row.verdict === 200) {
      expect(response.status, await response.text()).toBe(200);
      return;
    }
    const { status, errorCode } = await errorOf(response);
    expect({ status, errorCode }).toEqual({ status: row.verdict[0], errorCode: row.verdict[1] });
  });
});
