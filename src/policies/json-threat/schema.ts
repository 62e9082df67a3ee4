import { z } from '../../config/zod.js';
import { size } from '../../config/fields.js';
import { policyFields } from '../policy.js';

/**
 * The defaults of a `json-threat` entry written without settings. The five
 * structural limits are the values of Apigee's JSONThreatProtection reference
 * example, the baseline operators migrating from Apigee already know: tight
 * enough that an entry with no settings still protects, and meant to be
 * raised per API where its documents are legitimately bigger.
 */
export const JSON_THREAT_DEFAULTS = Object.freeze({
  /** Apigee's ContainerDepth example: real request documents rarely nest past a handful of levels. */
  max_depth: 10,
  /** Apigee's ObjectEntryCount example: caps the work of hashing keys (and hash-flooding) per object. */
  max_object_entries: 15,
  /** Apigee's ArrayElementCount example: caps the fan-out an upstream loops over per request. */
  max_array_elements: 20,
  /** Apigee's ObjectEntryNameLength example: names are identifiers, not payload. */
  max_name_length: 50,
  /** Apigee's StringValueLength example: enough for names, addresses and free-text fields. */
  max_string_length: 500,
  /** Far above any document the limits above allow in readable form; refuses padding and whitespace floods early. */
  max_body_size: '64kb',
  /** Off: the upstream's own parser refuses a malformed body, and the limits above hold whatever its syntax. */
  require_valid_json: false,
});

/** Written as a limit's value, switches that one measure off (Apigee: the element left out). */
export const UNLIMITED = 'unlimited';

const unlimited = z.literal(UNLIMITED).transform(() => Infinity);

// A limit is a positive whole number, or `unlimited` (Infinity to the scanner). Numbers keep their meaning.
const limit = (fallback: number, description: string) =>
  z
    .union([z.number().int().positive(), unlimited], { error: `expected a positive whole number or ${UNLIMITED}` })
    .default(fallback)
    .describe(`${description} \`${UNLIMITED}\` switches this limit off.`);

const bodySize = size(JSON_THREAT_DEFAULTS.max_body_size);

export const jsonThreatSchema = z.strictObject({
  ...policyFields('json-threat'),
  max_depth: limit(JSON_THREAT_DEFAULTS.max_depth, 'Deepest nesting of objects and arrays; `{"a":[1]}` has depth 2.'),
  max_object_entries: limit(JSON_THREAT_DEFAULTS.max_object_entries, 'Most entries in any one object, duplicate names included.'),
  max_array_elements: limit(JSON_THREAT_DEFAULTS.max_array_elements, 'Most elements in any one array.'),
  max_name_length: limit(
    JSON_THREAT_DEFAULTS.max_name_length,
    'Longest object entry name, in characters (UTF-16 code units) after unescaping.',
  ),
  max_string_length: limit(
    JSON_THREAT_DEFAULTS.max_string_length,
    'Longest string value, in characters (UTF-16 code units) after unescaping.',
  ),
  max_body_size: z
    .union([z.number(), z.string()], { error: `expected ${UNLIMITED} or a size like 16kb or 1mb` })
    .transform((value, ctx) => {
      if (value === UNLIMITED) return Infinity;
      // Everything else is a size as before, with the size's own messages.
      const parsed = bodySize.safeParse(value);
      if (parsed.success) return parsed.data;
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: 'custom', message: issue.message.replace(/^expected/, `expected ${UNLIMITED} or`) });
      return z.NEVER;
    })
    .prefault(JSON_THREAT_DEFAULTS.max_body_size)
    .describe(
      `Largest JSON body, like 64kb or 1mb; a larger Content-Length is refused before reading. \`${UNLIMITED}\`: only the gateway's limits.body_size applies.`,
    ),
  require_valid_json: z
    .boolean()
    .default(JSON_THREAT_DEFAULTS.require_valid_json)
    .describe(
      'Also refuse a JSON body that is not valid JSON (an empty body passes), as Apigee\'s JSONThreatProtection does; ' +
        'checked once the body is within every limit.',
    ),
});

export type JsonThreatSettings = z.output<typeof jsonThreatSchema>;
