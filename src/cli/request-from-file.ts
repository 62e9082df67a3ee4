/** A request as a file describes it, before the command line's flags are laid over it. */
export interface RequestFromFile {
  readonly method: string | undefined;
  /** The path with its query (the host of an absolute URL is not the gateway's business here). */
  readonly target: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer | undefined;
}

/** The file cannot be read as a request: exit 2, with this sentence. */
export class RequestFileError extends Error {
  override readonly name = 'RequestFileError';
}

/** The path and query of an absolute URL, or a path as given. */
export function targetOf(url: string, file: string): string {
  if (url.startsWith('/')) return url;
  let parsed: URL;
  try {
    parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`);
  } catch {
    throw new RequestFileError(`${file}: "${url}" is not a URL`);
  }
  return `${parsed.pathname}${parsed.search}`;
}
