import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';

export interface RawRequest {
  method: string;
  path: string;
  /** An array sends the header once per value (a repeated parameter header). */
  headers?: OutgoingHttpHeaders;
  /** Sent with a Content-Length, also on a GET (which fetch refuses to do). */
  body?: string;
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One request on its own connection, with node:http rather than fetch:
 * recipes need what fetch forbids (a body on a GET, a header sent twice) and
 * some answers close the connection (413).
 */
export function send(baseUrl: string, { method, path, headers = {}, body }: RawRequest): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const length = body === undefined ? {} : { 'content-length': Buffer.byteLength(body) };
    const req = httpRequest(new URL(path, baseUrl), { method, headers: { ...length, ...headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path}: no answer within 10 s`)));
    req.end(body);
  });
}
