import type { ServerResponse } from 'node:http';
import type { MediaFormat } from './negotiate.js';
import { toXmlDocument, type XmlRecord } from './xml.js';

export interface Representation {
  format: MediaFormat;
  /** Root element name when rendered as XML. */
  xmlRoot: string;
  xmlItem?: string;
}

type Headers = Readonly<Record<string, string>>;

/** Writes a record as JSON or XML, as the client asked (SPEC 4.3 Accept). */
export function sendRecord(res: ServerResponse, status: number, record: XmlRecord, representation: Representation, headers: Headers = {}): void {
  if (representation.format === 'json') {
    sendJson(res, status, record, headers);
    return;
  }
  const body = toXmlDocument(representation.xmlRoot, record, representation.xmlItem);
  send(res, status, body, { 'Content-Type': 'application/xml; charset=utf-8', ...headers });
}

/** Writes a JSON document; `headers` may set a more specific Content-Type. */
function sendJson(res: ServerResponse, status: number, value: unknown, headers: Headers = {}): void {
  sendJsonText(res, status, JSON.stringify(value), headers);
}

/** Writes JSON serialised in advance, for documents that change far less often than they are read. */
export function sendJsonText(res: ServerResponse, status: number, json: string, headers: Headers = {}): void {
  send(res, status, json, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
}

function send(res: ServerResponse, status: number, body: string, headers: Headers): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
