import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fromCurl } from '../../src/cli/curl-command.js';
import { RequestFileError } from '../../src/cli/request-from-file.js';

const FILE = 'request.sh';
const parse = (text: string) => fromCurl(text, FILE);
const problemOf = (text: string) => parse(text).then(() => 'parsed', (error: unknown) => (error instanceof RequestFileError ? error.message : `not a RequestFileError: ${String(error)}`));

const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

describe('a curl command line as a request (--request-file)', () => {
  it('reads what "Copy as cURL" writes: the URL, headers, $\'...\' quoting and continuation lines', async () => {
    const request = await parse(
      ["curl 'https://api.example.com/business/score/v2/x?q=1' \\", "  -H 'Accept: application/json' \\", "  -H $'X-Note: it\\'s a \\u00e9 test' \\", '  --compressed'].join('\n'),
    );
    expect(request).toEqual({ method: 'GET', target: '/business/score/v2/x?q=1', headers: [['Accept', 'application/json'], ['X-Note', "it's a é test"]], body: undefined });
  });

  it('takes the method from -X, attached or not, and a body from --data-raw', async () => {
    expect((await parse("curl -XPUT http://h/a --data-raw '{\"a\":1}' -H 'Content-Type: application/json'")).method).toBe('PUT');
    const request = await parse("curl http://h/a -X patch --data-raw '{\"a\":1}' -H 'Content-Type: application/json'");
    expect({ method: request.method, body: request.body?.toString(), headers: request.headers }).toEqual({ method: 'PATCH', body: '{"a":1}', headers: [['Content-Type', 'application/json']] });
  });

  it('sends -d data as a POST form, joined with &, unless -G puts it in the query', async () => {
    const form = await parse('curl http://h/a -d a=1 --data b=2');
    expect({ method: form.method, body: form.body?.toString(), headers: form.headers }).toEqual({ method: 'POST', body: 'a=1&b=2', headers: [['Content-Type', 'application/x-www-form-urlencoded']] });
    const query = await parse('curl -G http://h/a?x=0 -d a=1 --data-urlencode "q=one two"');
    expect({ method: query.method, target: query.target, body: query.body }).toEqual({ method: 'GET', target: '/a?x=0&a=1&q=one%20two', body: undefined });
  });

  it('reads --json as curl does, and -u, -A, -e and -b as the headers they become', async () => {
    const request = await parse('curl --json \'{"a":1}\' -u alice:secret -A agent/1 -e https://ref.example -b "s=1; t=2" http://h/a');
    expect({ method: request.method, body: request.body?.toString(), headers: request.headers }).toEqual({
      method: 'POST',
      body: '{"a":1}',
      headers: [
        ['Content-Type', 'application/json'],
        ['Accept', 'application/json'],
        ['Authorization', `Basic ${Buffer.from('alice:secret').toString('base64')}`],
        ['User-Agent', 'agent/1'],
        ['Referer', 'https://ref.example'],
        ['Cookie', 's=1; t=2'],
      ],
    });
  });

  it('reads a body from @file as curl does, and ignores what does not change the request', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'tg-curl-'));
    folders.push(folder);
    await writeFile(join(folder, 'body.json'), '{"from":"file"}');
    const request = await parse(`curl -sSL -k -o /dev/null --max-time 5 --data-binary @${join(folder, 'body.json')} http://h/a`);
    expect(request.body?.toString()).toBe('{"from":"file"}');
  });

  it.each([
    ["curl -F 'file=@x' http://h/a", 'curl option -F is not understood here; remove it or give the request with flags'],
    ["curl 'http://h/a", 'a single quote is never closed in the curl command'],
    ['curl "http://h/a', 'a double quote is never closed in the curl command'],
    ["curl $'http://h/a", "a $'...' quote is never closed in the curl command"],
    ['curl http://h/a http://h/b', 'the curl command names two URLs (http://h/a and http://h/b); test one request at a time'],
    ['curl -H', 'curl option -H needs a value'],
    ['curl -H NoColon http://h/a', 'curl header "NoColon" is not "Name: value"'],
    ['curl -b cookies.txt http://h/a', 'curl -b cookies.txt names a cookie file; give the cookies as name=value'],
    ['curl -d @- http://h/a', 'curl reads that body from standard input; give it with --body-file instead'],
    ['curl -s', 'the curl command names no URL'],
  ])('refuses %s with one clear sentence', async (text, message) => {
    expect(await problemOf(text)).toBe(`${FILE}: ${message}`);
  });
});
