import { RequestFileError, targetOf, type RequestFromFile } from './request-from-file.js';

interface HarRequest {
  method?: unknown;
  url?: unknown;
  headers?: unknown;
  postData?: { text?: unknown; mimeType?: unknown; params?: unknown };
}

/** A HAR log with one entry, an entry, or a request, as JSON text. */
export function fromHar(text: string, file: string): RequestFromFile {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new RequestFileError(`${file} is not valid JSON (${(error as Error).message}); expected a HAR entry`);
  }
  const request = harRequestIn(document, file);
  if (typeof request.method !== 'string' || typeof request.url !== 'string') {
    throw new RequestFileError(`${file}: a HAR request needs "method" and "url" strings`);
  }
  const headers: Array<readonly [string, string]> = [];
  if (request.headers !== undefined) {
    if (!Array.isArray(request.headers)) throw new RequestFileError(`${file}: "headers" of a HAR request is a list of {name, value}`);
    for (const header of request.headers as Array<{ name?: unknown; value?: unknown }>) {
      if (typeof header?.name !== 'string' || typeof header.value !== 'string') throw new RequestFileError(`${file}: every HAR header needs "name" and "value" strings`);
      // HTTP/2 pseudo-headers (":authority", ":path") as Chrome records them: not headers the gateway sees.
      if (!header.name.startsWith(':')) headers.push([header.name, header.value]);
    }
  }
  return { method: request.method.toUpperCase(), target: targetOf(request.url, file), headers, body: harBody(request.postData, file) };
}

/** The whole log with exactly one entry, one entry, or a request. */
function harRequestIn(document: unknown, file: string): HarRequest {
  const record = (value: unknown): Record<string, unknown> | undefined =>
    typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const root = record(document);
  const entries = record(root?.log)?.entries;
  if (Array.isArray(entries)) {
    if (entries.length !== 1) throw new RequestFileError(`${file}: the HAR log holds ${entries.length} entries; save one request (an entry) to test it`);
    return harRequestIn(entries[0], file);
  }
  const request = record(root?.request);
  if (request) return request as HarRequest;
  if (root && 'method' in root && 'url' in root) return root as HarRequest;
  throw new RequestFileError(`${file}: expected a HAR log with one entry, an entry (with "request") or a request (with "method" and "url")`);
}

function harBody(postData: HarRequest['postData'], file: string): Buffer | undefined {
  if (postData === undefined) return undefined;
  if (typeof postData.text === 'string') return Buffer.from(postData.text);
  if (Array.isArray(postData.params)) {
    const form = new URLSearchParams();
    for (const param of postData.params as Array<{ name?: unknown; value?: unknown }>) {
      if (typeof param?.name !== 'string') throw new RequestFileError(`${file}: every postData param needs a "name"`);
      form.append(param.name, typeof param.value === 'string' ? param.value : '');
    }
    return Buffer.from(form.toString());
  }
  return undefined;
}
