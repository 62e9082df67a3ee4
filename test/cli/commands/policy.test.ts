import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { run } from '../../../src/cli/run.js';
import { accountsYaml } from '../../helpers/accounts.js';

const POLICIES = {
  policies: [
    { name: 'injection-guard', kind: 'regex-protection', patterns: [{ name: 'internal-host', pattern: '\\bcorp\\.internal\\b' }], apply_to: { headers: ['X-Customer-Reference'] } },
    { name: 'json-guard', kind: 'json-threat', max_depth: 3, max_array_elements: 4 },
    { name: 'shadow-json', kind: 'json-threat', mode: 'report', max_array_elements: 2 },
    { name: 'partner-network', kind: 'ip-range', rules: [{ deny: '10.20.66.0/24' }, { allow: ['10.20.0.0/16'] }], default: 'deny' },
    { name: 'office-hours', kind: 'time-of-day', time_zone: 'America/Chicago', windows: [{ days: ['mon-fri'], from: '08:00', to: '18:00' }] },
    { name: 'per-client', kind: 'spike-arrest', rate: '30ps', burst: 10 },
    { name: 'app-network', kind: 'ip-range', rules: [{ allow: '10.20.1.0/24' }], default: 'deny' },
  ],
};

/** Monday 2026-11-23, 09:00 in Chicago (CST). */
const MONDAY_9AM = '2026-11-23T09:00:00-06:00';

let dir: string;
let config: string;

async function policyTest(...args: string[]): Promise<{ code: number | 'running'; stdout: string; stderr: string }> {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const chunks = { stdout: '', stderr: '' };
  stdout.on('data', (chunk: Buffer) => (chunks.stdout += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (chunks.stderr += chunk.toString()));
  const code = await run(['policy', 'test', '--config', config, ...args], { stdin: new PassThrough(), stdout, stderr });
  return { code, ...chunks };
}

/** The verdict line of one policy in the text output: its columns, split on runs of spaces. */
const rowOf = (stdout: string, policy: string): string[] | undefined =>
  stdout
    .split('\n')
    .find((line) => line.split(/\s{2,}/)[1] === policy)
    ?.split(/\s{2,}/);

async function requestFile(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tg-policy-test-'));
  await mkdir(join(dir, 'policies'));
  await writeFile(join(dir, 'policies', 'main.yaml'), stringify(POLICIES));
  await writeFile(join(dir, 'accounts.yaml'), await accountsYaml({ 'app-one': ['app-network'] }));
  config = join(dir, 'gateway.yaml');
  await writeFile(
    config,
    stringify({
      accounts: './accounts.yaml',
      policies: { folder: './policies', defaults: ['injection-guard'], endpoints: { '/oauth2/v1/token': ['per-client'] } },
      routes: [
        { path: '/partners/', upstream: 'http://127.0.0.1:9', policies: ['partner-network', 'office-hours', 'per-client'] },
        { path: '/json/', upstream: 'http://127.0.0.1:9', policies: ['shadow-json', 'json-guard'] },
      ],
    }),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('token-gateway policy test: each verdict and why, in chain order', () => {
  it('passes, saying for each policy what let the request through', async () => {
    const { code, stdout, stderr } = await policyTest('--path', '/partners/x?q=fine', '--client-address', '10.20.1.5', '--at', MONDAY_9AM);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('served by route /partners/: 4 policies before authentication');
    expect(rowOf(stdout, 'injection-guard')?.slice(2, 5)).toEqual(['regex-protection', 'enforce', 'PASS']);
    expect(rowOf(stdout, 'injection-guard')?.[5]).toMatch(/^no pattern matched \(sql-injection, .*internal-host\) in the path, the query \(1 parameters\), header x-customer-reference \(absent\), no JSON or form body$/);
    expect(rowOf(stdout, 'partner-network')?.[5]).toBe('10.20.1.5 allowed by rule 2 (10.20.0.0/16)');
    expect(rowOf(stdout, 'office-hours')?.[5]).toBe("Mon 09:00 America/Chicago is inside that day's windows (08:00-18:00)");
    expect(rowOf(stdout, 'per-client')?.[5]).toMatch(/^counted as ip:10\.20\.1\.5: its window of 33\.3 ms \(30ps\) admits 1 and had room \(one request against an empty counter/);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('would pass');
  });

  it.each([
    ['a pattern, and where it matched', ['--path', '/partners/x', '--header', 'X-Customer-Reference: corp.internal', '--client-address', '10.20.1.5'], 'injection-guard', 'pattern internal-host matched header x-customer-reference', '401 REGEX_THREAT'],
    ['an address, and the rule and range', ['--path', '/partners/x', '--client-address', '10.20.66.7'], 'partner-network', '10.20.66.7 denied by rule 1 (10.20.66.0/24)', '403 IP_RANGE_FORBIDDEN'],
    ['a time, and the windows in the zone', ['--path', '/partners/x', '--client-address', '10.20.1.5', '--at', '2026-11-21T13:00:00-06:00'], 'office-hours', "outside the allowed windows: Sat 13:00 America/Chicago; that day's windows: no window", '403 TIME_OF_DAY_FORBIDDEN'],
    ['a limit, and the measure', ['--path', '/json/x', '--header', 'Content-Type: application/json', '--body', '{"a":{"b":{"c":{}}}}'], 'json-guard', 'nested deeper than 3 levels', '401 JSON_THREAT'],
  ])('refuses with exit 1, naming %s', async (_case, args, policy, reason, refusal) => {
    const { code, stdout } = await policyTest('--at', MONDAY_9AM, ...args);
    expect(code).toBe(1);
    expect(rowOf(stdout, policy)?.slice(4)).toEqual(['REFUSE', reason]);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe(`would be refused: ${refusal} by ${policy}`);
  });

  it('marks what the gateway would not reach after a refusal, with its own verdict', async () => {
    const { code, stdout } = await policyTest('--path', '/partners/x', '--client-address', '192.0.2.1', '--at', MONDAY_9AM);
    expect(code).toBe(1);
    expect(rowOf(stdout, 'partner-network')?.[4]).toBe('REFUSE');
    expect(rowOf(stdout, 'office-hours')?.[4]).toBe('(PASS)');
    expect(stdout).toContain('(...): not reached, the gateway stops at partner-network');
  });

  it('lets a report-only refusal through with exit 0 and says so, and still refuses for an enforcing policy after it', async () => {
    const shadowOnly = await policyTest('--path', '/json/x', '--header', 'Content-Type: application/json', '--body', '[1,2,3]');
    expect(shadowOnly.code).toBe(0);
    expect(rowOf(shadowOnly.stdout, 'shadow-json')?.slice(3)).toEqual(['report', 'WOULD-REFUSE', 'array has more than 2 elements']);
    expect(shadowOnly.stdout.trimEnd().split('\n').at(-1)).toBe('would pass (1 report-only policy would refuse it: mode report lets it through)');
    const both = await policyTest('--path', '/json/x', '--header', 'Content-Type: application/json', '--body', '[1,2,3,4,5]');
    expect(both.code).toBe(1);
    expect(rowOf(both.stdout, 'shadow-json')?.[4]).toBe('WOULD-REFUSE');
    expect(rowOf(both.stdout, 'json-guard')?.[4]).toBe('REFUSE');
  });

  it("adds the app's own policies for --client-id, after authentication", async () => {
    const { code, stdout } = await policyTest('--path', '/partners/x', '--client-address', '10.20.2.5', '--client-id', 'app-one', '--at', MONDAY_9AM);
    expect(stdout).toContain('served by route /partners/: 4 policies before authentication, then 1 of app app-one once it is authenticated');
    expect(rowOf(stdout, 'per-client')?.[5]).toMatch(/^counted as client_id:app-one/);
    expect(rowOf(stdout, 'app-network')?.slice(4)).toEqual(['REFUSE', '10.20.2.5 denied by the default action']);
    expect(code).toBe(1);
  });

  it('runs the chain of an endpoint, named or found by its path', async () => {
    for (const args of [['--endpoint', '/oauth2/v1/token'], ['--path', '/oauth2/v1/token']]) {
      const { code, stdout } = await policyTest(...args, '--method', 'POST');
      expect(code).toBe(0);
      expect(stdout).toContain('served by endpoint /oauth2/v1/token: 2 policies before authentication');
      expect(rowOf(stdout, 'per-client')?.[4]).toBe('PASS');
    }
  });

  it('prints the verdicts as JSON with --json', async () => {
    const { code, stdout } = await policyTest('--path', '/partners/x', '--client-address', '10.20.66.7', '--at', MONDAY_9AM, '--json');
    expect(code).toBe(1);
    const answer = JSON.parse(stdout);
    expect(answer).toMatchObject({
      request: { method: 'GET', target: '/partners/x', clientAddress: '10.20.66.7', clientId: null, at: '2026-11-23T15:00:00.000Z' },
      served: 'route /partners/',
      result: 'refuse',
      refusedBy: { policy: 'partner-network', status: 403, errorCode: 'IP_RANGE_FORBIDDEN' },
    });
    expect(answer.policies.map((each: { policy: string; verdict: string; reached: boolean }) => [each.policy, each.verdict, each.reached])).toEqual([
      ['injection-guard', 'pass', true],
      ['partner-network', 'refuse', true],
      ['office-hours', 'pass', false],
      ['per-client', 'pass', false],
    ]);
  });

  it('refuses a body over the limit of what serves it as the gateway would, not as the policy', async () => {
    const { code, stdout } = await policyTest('--path', '/json/x', '--header', 'Content-Type: application/json', '--body', `[${'1,'.repeat(600_000)}1]`);
    expect(code).toBe(1);
    // The defaults' regex-protection reads JSON bodies: it is the first to ask for this one.
    expect(rowOf(stdout, 'injection-guard')?.slice(4)).toEqual(['FAILED', 'content-length 1200003 > 1048576 (refused as PAYLOAD_TOO_LARGE, not by the policy)']);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('would be refused: 413 PAYLOAD_TOO_LARGE while injection-guard ran (not its verdict)');
  });
});

describe('token-gateway policy test: a request from a file', () => {
  it('reads a HAR log of one entry, as a browser saves it', async () => {
    const har = {
      log: {
        version: '1.2',
        entries: [
          {
            request: {
              method: 'POST',
              url: 'https://api.example.com/json/orders?x=1',
              headers: [
                { name: ':authority', value: 'api.example.com' },
                { name: 'Content-Type', value: 'application/json' },
              ],
              postData: { mimeType: 'application/json', text: '{"items":[1,2,3]}' },
            },
          },
        ],
      },
    };
    const { code, stdout } = await policyTest('--request-file', await requestFile('one.har', JSON.stringify(har)));
    expect(stdout).toContain('request: POST /json/orders?x=1 from 127.0.0.1');
    expect(rowOf(stdout, 'shadow-json')?.[4]).toBe('WOULD-REFUSE');
    expect(rowOf(stdout, 'json-guard')?.[4]).toBe('PASS');
    expect(code).toBe(0);
  });

  it('reads a curl command line as "Copy as cURL" writes it, flags laid over it', async () => {
    const curl = [
      "curl 'https://api.example.com/partners/x?q=1' \\",
      "  -H 'Accept: application/json' \\",
      "  -H $'X-Customer-Reference: a\\'b corp.internal' \\",
      '  --compressed -sS',
    ].join('\n');
    const { code, stdout } = await policyTest('--request-file', await requestFile('call.sh', curl), '--client-address', '10.20.1.5', '--at', MONDAY_9AM);
    expect(stdout).toContain('request: GET /partners/x?q=1 from 10.20.1.5');
    expect(rowOf(stdout, 'injection-guard')?.slice(4)).toEqual(['REFUSE', 'pattern internal-host matched header x-customer-reference']);
    expect(code).toBe(1);
  });
});

describe('token-gateway policy test: bad input is exit 2 with one clear line, never a stack', () => {
  it.each([
    ['a file that is neither', 'notes.txt', 'GET /partners/x please', /notes\.txt is neither a HAR entry \(JSON\) nor a curl command line/],
    ['JSON that does not parse', 'broken.har', '{"log": {"entries": [', /broken\.har is not valid JSON \(.*\); expected a HAR entry/],
    ['a HAR log of two entries', 'two.har', JSON.stringify({ log: { entries: [{ request: { method: 'GET', url: '/a' } }, { request: { method: 'GET', url: '/b' } }] } }), /the HAR log holds 2 entries; save one request/],
    ['JSON that is no HAR', 'other.json', '{"hello": "world"}', /expected a HAR log with one entry, an entry \(with "request"\) or a request/],
    ['a curl option it cannot honour', 'upload.sh', "curl -F 'file=@x' http://h/partners/x", /curl option -F is not understood here/],
    ['an unclosed quote', 'quote.sh', "curl 'http://h/partners/x", /a single quote is never closed/],
  ])('%s', async (_case, name, text, message) => {
    const { code, stdout, stderr } = await policyTest('--request-file', await requestFile(name, text));
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    ['no request at all', [], /say which request: --path, --route, --endpoint or --request-file/],
    ['a path nothing serves', ['--path', '/nowhere'], /no route or endpoint of .*gateway\.yaml serves \/nowhere/],
    ['a time that is not ISO 8601', ['--path', '/partners/x', '--at', 'tomorrow'], /--at must be an ISO 8601 time/],
    ['an address that is not one', ['--path', '/partners/x', '--client-address', 'localhost'], /--client-address must be an IPv4 or IPv6 address/],
    ['a header without a colon', ['--path', '/partners/x', '--header', 'X-Flag'], /--header must be 'Name: value'/],
    ['an unknown route', ['--route', '/elsewhere/'], /--route must be a route of .*gateway\.yaml \(\/partners\/, \/json\/\)/],
    ['a request file that is missing', ['--request-file', '/nonexistent/req.har'], /cannot read \/nonexistent\/req\.har \(ENOENT\)/],
    ['both --route and --endpoint', ['--route', '/partners/', '--endpoint', '/oauth2/v1/token'], /^token-gateway policy: give --route or --endpoint, not both\n/],
    // The gateway's listener (node's HTTP parser) answers 400 to any method not in node:http METHODS, before any policy.
    ['a method the gateway cannot receive', ['--path', '/partners/x', '--method', 'FOO'], /^token-gateway policy: --method must be one the gateway can receive, like GET or POST \(node's HTTP parser answers 400 to any other\), got "FOO"\n/],
    ['a method that is not HTTP token syntax', ['--path', '/partners/x', '--method', 'A B'], /--method must be one the gateway can receive, .*got "A B"/],
  ])('%s', async (_case, args, message) => {
    const { code, stderr } = await policyTest(...args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it("names the request file's method when that is the one the gateway cannot receive", async () => {
    const { code, stderr } = await policyTest('--request-file', await requestFile('foo.sh', 'curl -X FOO http://h/partners/x'));
    expect(code).toBe(2);
    expect(stderr).toMatch(/^token-gateway policy: the request file's method must be one the gateway can receive, .*got "FOO"\n/);
  });

  it('takes an extension method the gateway can receive (PROPFIND), in any case', async () => {
    const { code, stdout } = await policyTest('--path', '/partners/x', '--method', 'propfind', '--client-address', '10.20.2.5', '--at', MONDAY_9AM, '--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).request.method).toBe('PROPFIND');
  });

  it('prints the problems of an invalid policy file with file:line and exits 2', async () => {
    const broken = await mkdtemp(join(tmpdir(), 'tg-policy-test-broken-'));
    try {
      await mkdir(join(broken, 'policies'));
      await writeFile(join(broken, 'accounts.yaml'), await accountsYaml());
      await writeFile(join(broken, 'gateway.yaml'), 'accounts: ./accounts.yaml\nroutes:\n  - { path: /a/, upstream: "http://127.0.0.1:9" }\n');
      await writeFile(join(broken, 'policies', 'guard.yaml'), 'policies:\n  - name: guard\n    kind: regex-protection\n    mode: shadow\n');
      const [stdout, stderr] = [new PassThrough(), new PassThrough()];
      let errors = '';
      stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      const code = await run(['policy', 'test', '--config', join(broken, 'gateway.yaml'), '--path', '/a/x'], { stdin: new PassThrough(), stdout, stderr });
      expect(code).toBe(2);
      expect(errors).toContain(`${join(broken, 'policies', 'guard.yaml')}:4: policies[0].mode: expected enforce or report, got "shadow"`);
    } finally {
      await rm(broken, { recursive: true, force: true });
    }
  });
});
