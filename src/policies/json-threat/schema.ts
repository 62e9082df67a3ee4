import { z } from 'zod';
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
});

const positiveInt = (fallback: number, description: string) =>
  z.number().int().positive().default(fallback).describe(description);

export const jsonThreatSchema = z.strictObject({
  ...policyFields('json-threat'),
  max_depth: positiveInt(
    JSON_THREAT_DEFAULTS.max_depth,
    'Deepest nesting of objects and arrays; `{"a":[1]}` has depth 2.',
  ),
  max_object_entries: positiveInt(
    JSON_THREAT_DEFAULTS.max_object_entries,
    'Most entries in any one object, duplicate names included.',
  ),
  max_array_elements: positiveInt(JSON_THREAT_DEFAULTS.max_array_elements, 'Most elements in any one array.'),
  max_name_length: positiveInt(
    JSON_THREAT_DEFAULTS.max_name_length,
    'Longest object entry name, in characters (UTF-16 code units) after unescaping.',
  ),
  max_string_length: positiveInt(
    JSON_THREAT_DEFAULTS.max_string_length,
    'Longest string value, in characters (UTF-16 code units) after unescaping.',
  ),
  max_body_size: size(JSON_THREAT_DEFAULTS.max_body_size).describe(
    'Largest JSON body, like 64kb or 1mb; a larger Content-Length is refused before reading.',
  ),
});

export type JsonThreatSettings = z.output<typeof jsonThreatSchema>;
