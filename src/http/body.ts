import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';

/**
 * Reads a whole request body, refusing it as soon as it passes `limit` bytes,
 * whether the size was announced (Content-Length) or not (chunked). Only the
 * OAuth endpoints buffer bodies, and theirs are small.
 */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  assertAnnouncedSizeWithin(req, limit);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new GatewayError('PAYLOAD_TOO_LARGE', { detail: `body passed ${limit} bytes` });
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    // The client hung up mid-body: its mistake, not a server failure (and nobody is left to answer).
    throw new GatewayError('MALFORMED_REQUEST', { detail: 'client aborted while sending the body', cause: error });
  }
  return Buffer.concat(chunks, size);
}

/** A body announced (Content-Length) as larger than `limit` is refused before a byte of it is read. */
export function assertAnnouncedSizeWithin(req: IncomingMessage, limit: number): void {
  const announced = Number(req.headers['content-length'] ?? 0);
  if (announced > limit) throw new GatewayError('PAYLOAD_TOO_LARGE', { detail: `content-length ${announced} > ${limit}` });
}

/**
 * Depth of the deepest container in a JSON text, found in one pass without
 * parsing, so a hostile body is refused before JSON.parse or any code that
 * walks the result can be made to recurse on it.
 */
export function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

export interface JsonBodyLimits {
  maxBytes: number;
  maxDepth: number;
}

/**
 * A JSON object body, or undefined when the body is empty. Anything else
 * (invalid JSON, an array, a string) is the client's mistake: 400, never 500.
 */
export async function readJsonObject(
  req: IncomingMessage,
  limits: JsonBodyLimits,
): Promise<Record<string, unknown> | undefined> {
  const text = (await readBody(req, limits.maxBytes)).toString('utf8');
  if (text.trim() === '') return undefined;
  if (jsonDepthExceeds(text, limits.maxDepth)) {
    throw new GatewayError('JSON_THREAT', { detail: `JSON nested deeper than ${limits.maxDepth}` });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GatewayError('MALFORMED_JSON_BODY', { detail: 'body is not valid JSON' });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new GatewayError('MALFORMED_JSON_BODY', { detail: 'body is not a JSON object' });
  }
  return parsed as Record<string, unknown>;
}

/** Discards a body nobody needs, within the same limit, so keep-alive stays usable. */
export async function drainBody(req: IncomingMessage, limit: number): Promise<void> {
  await readBody(req, limit);
}
