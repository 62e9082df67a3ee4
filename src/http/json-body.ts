import { GatewayError } from '../errors/gateway-error.js';
import type { RequestBody } from './request-body.js';

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

/**
 * A JSON object body, or undefined when the body is empty. Anything else
 * (invalid JSON, an array, a string) is the client's mistake: 400, never 500.
 */
export async function readJsonObject(body: RequestBody, maxDepth: number): Promise<Record<string, unknown> | undefined> {
  const text = await body.text();
  if (text.trim() === '') return undefined;
  if (jsonDepthExceeds(text, maxDepth)) {
    throw new GatewayError('JSON_THREAT', { detail: `JSON nested deeper than ${maxDepth}` });
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
