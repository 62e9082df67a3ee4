import type { IncomingMessage } from 'node:http';
import { contentCodingOf, declaresNonUtf8Charset, isJsonMediaType } from '../../http/negotiate.js';
import { StreamRejection, type PolicyKind, type Rejection } from '../policy.js';
import type { JsonLimits, JsonMeasurements } from './limits.js';
import { JsonThreatScanner } from './scanner.js';
import { jsonThreatSchema, type JsonThreatSettings } from './schema.js';

const limitsOf = (settings: JsonThreatSettings): JsonLimits =>
  Object.freeze({
    maxDepth: settings.max_depth,
    maxObjectEntries: settings.max_object_entries,
    maxArrayElements: settings.max_array_elements,
    maxNameLength: settings.max_name_length,
    maxStringLength: settings.max_string_length,
    maxBodySize: settings.max_body_size,
  });

const refuse = (detail: string): Rejection => ({ code: 'JSON_THREAT', detail });

/** What can be refused from the headers alone, before a byte of the body is read. */
function refusalBeforeReading(req: IncomingMessage, limits: JsonLimits): Rejection | undefined {
  // A compressed body cannot be measured without inflating it here; letting it
  // through unmeasured would make `Content-Encoding: gzip` a bypass, so it fails closed.
  if (contentCodingOf(req.headers) !== undefined) return refuse('a content-encoded JSON body cannot be inspected');
  if (declaresNonUtf8Charset(req.headers['content-type'])) return refuse('a JSON body in a charset other than UTF-8');
  const announced = Number(req.headers['content-length'] ?? 0);
  if (announced > limits.maxBodySize) return refuse(`content-length ${announced} > ${limits.maxBodySize} bytes`);
  return undefined;
}

/**
 * `require_valid_json`: the body is parsed once, only after it passed every
 * limit (so JSON.parse never sees a hostile size or depth). An empty body
 * passes: there is no document to refuse, and Apigee's parser is never given
 * one either.
 */
function refusalOfInvalidJson(text: string): Rejection | undefined {
  // Upstream parsers skip a leading byte-order mark; JSON.parse does not.
  const document = text.replace(/^\uFEFF/, '');
  if (document.trim().length === 0) return undefined;
  try {
    JSON.parse(document);
    return undefined;
  } catch {
    return refuse('the body is not valid JSON');
  }
}

/**
 * JSON threat detection (SPEC 5.8; refused with 401 per the section 7 row).
 * The body is measured while it streams in: the first chunk that passes a
 * limit stops the read, so the rest of a hostile body is never received, and
 * neither JSON.parse nor the upstream ever sees it.
 *
 * In report mode the body must still reach the upstream whole: the first
 * violation is kept instead of thrown, the rest of the body is read (within
 * limits.body_size, as for any body a policy reads) without being scanned,
 * and the violation is returned as the verdict, which `enforce` reports.
 */
export const jsonThreat: PolicyKind<typeof jsonThreatSchema> = {
  kind: 'json-threat',
  schema: jsonThreatSchema,
  compile(settings) {
    const limits = limitsOf(settings);
    const stopsTheBody = settings.mode === 'enforce';
    return async (request, explain) => {
      const contentType = request.req.headers['content-type'];
      if (!isJsonMediaType(contentType)) {
        explain?.(`not a JSON body (content-type ${contentType === undefined ? 'absent' : JSON.stringify(contentType)}): not read`);
        return undefined;
      }
      const early = refusalBeforeReading(request.req, limits);
      if (early) return early;
      const scanner = new JsonThreatScanner(limits);
      let found: string | undefined;
      const body = await request.body.read((chunk) => {
        if (found !== undefined) return;
        found = scanner.write(chunk);
        if (found !== undefined && stopsTheBody) throw new StreamRejection('JSON_THREAT', { detail: found });
      });
      const detail = found ?? scanner.end();
      if (detail !== undefined) return refuse(detail);
      if (settings.require_valid_json) {
        const invalid = refusalOfInvalidJson(body.toString('utf8'));
        if (invalid) return invalid;
      }
      explain?.(`${measured(scanner.stats(), limits)}${settings.require_valid_json ? '; valid JSON' : ''}`);
      return undefined;
    };
  },
};

/** The dry run's reason for a body that passed: each measure against its limit. */
function measured(seen: Readonly<JsonMeasurements>, limits: JsonLimits): string {
  const of = (value: number, limit: number) => `${value} of ${limit === Infinity ? 'unlimited' : limit}`;
  return (
    `JSON body within every limit: ${of(seen.bytes, limits.maxBodySize)} bytes, depth ${of(seen.depth, limits.maxDepth)}, ` +
    `object entries ${of(seen.objectEntries, limits.maxObjectEntries)}, array elements ${of(seen.arrayElements, limits.maxArrayElements)}, ` +
    `name length ${of(seen.nameLength, limits.maxNameLength)}, string length ${of(seen.stringLength, limits.maxStringLength)}`
  );
}
