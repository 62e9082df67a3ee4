import { readFile } from 'node:fs/promises';
import { RequestFileError, targetOf, type RequestFromFile } from './request-from-file.js';

/** Options that take no value and change nothing the policies see. */
const IGNORED_FLAGS = new Set(['-s', '--silent', '-S', '--show-error', '-i', '--include', '-v', '--verbose', '-k', '--insecure', '-L', '--location', '--compressed', '-f', '--fail', '--fail-with-body', '-N', '--no-buffer', '--http1.1', '--http2', '-g', '--globoff']);
/** Options whose value changes nothing the policies see. */
const IGNORED_WITH_VALUE = new Set(['-o', '--output', '-m', '--max-time', '--connect-timeout', '--retry', '-w', '--write-out', '--cacert', '--resolve']);
const DATA = new Set(['-d', '--data', '--data-raw', '--data-ascii', '--data-binary', '--data-urlencode']);
const TAKES_VALUE = new Set(['-X', '--request', '-H', '--header', '-u', '--user', '-A', '--user-agent', '-e', '--referer', '-b', '--cookie', '--url', '--json', ...DATA, ...IGNORED_WITH_VALUE]);

/** A curl command line (from "Copy as cURL"), as curl would send it. */
export async function fromCurl(text: string, file: string): Promise<RequestFromFile> {
  const words = shellWords(text, file).slice(1);
  let method: string | undefined;
  let url: string | undefined;
  let asQuery = false;
  const headers: Array<readonly [string, string]> = [];
  const data: string[] = [];
  for (let i = 0; i < words.length; i++) {
    let word = words[i] as string;
    let value: string | undefined;
    // -XPOST, -H'Name: v', --data=x
    if (/^-[A-Za-z]./.test(word) && TAKES_VALUE.has(word.slice(0, 2))) [word, value] = [word.slice(0, 2), word.slice(2)];
    else if (word.startsWith('--') && word.includes('=') && TAKES_VALUE.has(word.slice(0, word.indexOf('=')))) [word, value] = [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)];
    if (!word.startsWith('-') || word === '-') {
      if (url !== undefined) throw new RequestFileError(`${file}: the curl command names two URLs (${url} and ${word}); test one request at a time`);
      url = word;
      continue;
    }
    if (IGNORED_FLAGS.has(word) || isBundleOfIgnoredFlags(word)) continue;
    if (word === '-G' || word === '--get') {
      asQuery = true;
      continue;
    }
    if (word === '-I' || word === '--head') {
      method = 'HEAD';
      continue;
    }
    if (!TAKES_VALUE.has(word)) throw new RequestFileError(`${file}: curl option ${word} is not understood here; remove it or give the request with flags`);
    if (value === undefined) {
      value = words[++i];
      if (value === undefined) throw new RequestFileError(`${file}: curl option ${word} needs a value`);
    }
    if (word === '-X' || word === '--request') method = value.toUpperCase();
    else if (word === '-H' || word === '--header') headers.push(headerOf(value, file));
    else if (word === '-u' || word === '--user') headers.push(['Authorization', `Basic ${Buffer.from(value).toString('base64')}`]);
    else if (word === '-A' || word === '--user-agent') headers.push(['User-Agent', value]);
    else if (word === '-e' || word === '--referer') headers.push(['Referer', value]);
    else if (word === '-b' || word === '--cookie') {
      if (!value.includes('=')) throw new RequestFileError(`${file}: curl -b ${value} names a cookie file; give the cookies as name=value`);
      headers.push(['Cookie', value]);
    } else if (word === '--url') url = value;
    else if (word === '--json') {
      data.push(await dataValue(value, file));
      if (!headers.some(([name]) => name.toLowerCase() === 'content-type')) headers.push(['Content-Type', 'application/json']);
      if (!headers.some(([name]) => name.toLowerCase() === 'accept')) headers.push(['Accept', 'application/json']);
    } else if (DATA.has(word)) data.push(word === '--data-urlencode' ? urlEncoded(value) : word === '--data-raw' ? value : await dataValue(value, file));
    // IGNORED_WITH_VALUE: the value is read and dropped.
  }
  if (url === undefined) throw new RequestFileError(`${file}: the curl command names no URL`);
  let target = targetOf(url, file);
  let body: Buffer | undefined;
  if (data.length > 0) {
    if (asQuery) target += `${target.includes('?') ? '&' : '?'}${data.join('&')}`;
    else {
      body = Buffer.from(data.join('&'));
      if (!headers.some(([name]) => name.toLowerCase() === 'content-type')) headers.push(['Content-Type', 'application/x-www-form-urlencoded']);
    }
  }
  return { method: method ?? (body ? 'POST' : 'GET'), target, headers, body };
}

const isBundleOfIgnoredFlags = (word: string): boolean => /^-[A-Za-z]{2,}$/.test(word) && [...word.slice(1)].every((letter) => IGNORED_FLAGS.has(`-${letter}`));

function headerOf(text: string, file: string): readonly [string, string] {
  const colon = text.indexOf(':');
  if (colon <= 0) throw new RequestFileError(`${file}: curl header "${text}" is not "Name: value"`);
  return [text.slice(0, colon).trim(), text.slice(colon + 1).trim()];
}

/** curl's `@file` reads the body from a file, as curl would, relative to the current folder. */
async function dataValue(value: string, file: string): Promise<string> {
  if (!value.startsWith('@')) return value;
  if (value === '@-') throw new RequestFileError(`${file}: curl reads that body from standard input; give it with --body-file instead`);
  try {
    return await readFile(value.slice(1), 'utf8');
  } catch (error) {
    throw new RequestFileError(`${file}: cannot read the body file ${value.slice(1)} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** `--data-urlencode name=value` encodes the value part. */
function urlEncoded(value: string): string {
  const equals = value.indexOf('=');
  return equals < 0 ? encodeURIComponent(value) : `${value.slice(0, equals + 1)}${encodeURIComponent(value.slice(equals + 1))}`;
}

/**
 * A command line split as bash splits it: single quotes, double quotes with
 * their escapes, $'...' (what "Copy as cURL" writes for bodies with special
 * characters), backslash escapes and line continuations. No expansion.
 */
function shellWords(text: string, file: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  const append = (part: string) => (word = (word ?? '') + part);
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '\\' && text[i + 1] === '\n') i += 2;
    else if (c === '\\' && text[i + 1] === '\r' && text[i + 2] === '\n') i += 3;
    else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      i++;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new RequestFileError(`${file}: a single quote is never closed in the curl command`);
      append(text.slice(i + 1, end));
      i = end + 1;
    } else if (c === '$' && text[i + 1] === "'") {
      const [part, next] = ansiC(text, i + 2, file);
      append(part);
      i = next;
    } else if (c === '"') {
      let part = '';
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < text.length && '"\\$`\n'.includes(text[i + 1] as string)) {
          if (text[i + 1] !== '\n') part += text[i + 1];
          i += 2;
        } else part += text[i++];
      }
      if (i >= text.length) throw new RequestFileError(`${file}: a double quote is never closed in the curl command`);
      append(part);
      i++;
    } else if (c === '\\' && i + 1 < text.length) {
      append(text[i + 1] as string);
      i += 2;
    } else {
      append(c);
      i++;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '?': '?', a: '\x07', b: '\b', e: '\x1b', f: '\f', v: '\v' };

/** The inside of $'...', from `start` to its closing quote; returns the text and the index after the quote. */
function ansiC(text: string, start: number, file: string): [string, number] {
  let part = '';
  let i = start;
  while (i < text.length && text[i] !== "'") {
    if (text[i] !== '\\') {
      part += text[i++];
      continue;
    }
    const kind = text[i + 1] ?? '';
    const hex = kind === 'x' ? /^[0-9a-fA-F]{1,2}/.exec(text.slice(i + 2)) : kind === 'u' ? /^[0-9a-fA-F]{1,4}/.exec(text.slice(i + 2)) : null;
    if (hex) {
      part += String.fromCharCode(parseInt(hex[0], 16));
      i += 2 + hex[0].length;
    } else {
      part += ESCAPES[kind] ?? `\\${kind}`;
      i += 2;
    }
  }
  if (i >= text.length) throw new RequestFileError(`${file}: a $'...' quote is never closed in the curl command`);
  return [part, i + 1];
}
