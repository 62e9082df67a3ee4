import { readFile } from 'node:fs/promises';
import { fromCurl } from './curl-command.js';
import { fromHar } from './har-entry.js';
import { RequestFileError, type RequestFromFile } from './request-from-file.js';

export { RequestFileError, type RequestFromFile };

/**
 * `--request-file`: a HAR entry (a browser's "Copy as HAR": the whole log
 * with one entry, one entry, or its `request`) or a curl command line ("Copy
 * as cURL", bash quoting, continuation lines included). JSON is read as HAR;
 * anything starting with `curl` as a command line.
 */
export async function readRequestFile(file: string): Promise<RequestFromFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new RequestFileError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return fromHar(trimmed, file);
  if (/^curl(\s|$)/.test(trimmed)) return fromCurl(trimmed, file);
  throw new RequestFileError(`${file} is neither a HAR entry (JSON) nor a curl command line (it should start with "curl" or "{")`);
}
