import { catalogue, type ErrorCode } from '../../errors/catalogue.js';
import { ERROR_XML, errorEnvelope } from '../../http/render-error.js';
import { toXmlDocument } from '../../http/xml.js';
import { allowHeader, requestIdHeader } from './headers.js';
import type { JsonSchema, OpenApiObject } from './types.js';
import { headerRef, schemaRef } from './types.js';

/** One error an operation can answer, and when. Status, type and message come from the catalogue. */
export interface ErrorCase {
  readonly code: ErrorCode;
  readonly when: string;
}

export interface ErrorResponseOptions {
  /** The token and revocation endpoints add RFC 6749 `error` / `error_description`. */
  readonly oauth: boolean;
  /** What the path accepts: the `Allow` of its 405. */
  readonly methods: readonly string[];
}

/** Shown in examples; a real response carries the exchange's X-Request-Id. */
const EXAMPLE_REQUEST_ID = '6f0c2b1e-8d4a-4c3e-9b7f-2a5d1e0c9f84';

/** The name of the schema that pins one code's errorCode, errorType, message (and RFC 6749 members). */
export const errorCodeSchemaName = (code: ErrorCode): string => `Error.${code}`;

/**
 * One schema per catalogue code, generated from the catalogue so the
 * document cannot quote a message the gateway does not send.
 */
export function errorCodeSchema(code: ErrorCode): JsonSchema {
  const entry = catalogue[code];
  return {
    type: 'object',
    title: code,
    description: entry.message,
    properties: {
      errors: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            errorCode: { const: code },
            errorType: { const: entry.errorType },
            message: { const: entry.message },
          },
        },
      },
      // Only where the envelope has these members (OAuthErrorEnvelope); ErrorEnvelope forbids them.
      error: { const: entry.oauthError },
      error_description: { const: entry.message },
    },
  };
}

/**
 * The error responses of one operation, one per status: a table of the codes
 * with their messages and conditions, a schema that admits exactly those
 * codes, one example per code in JSON and XML, and `x-error-codes` listing
 * them for tools (and for the test that sends a request for each).
 */
export function errorResponses(cases: readonly ErrorCase[], options: ErrorResponseOptions): Record<string, OpenApiObject> {
  const byStatus = new Map<number, ErrorCase[]>();
  for (const errorCase of cases) {
    const status = catalogue[errorCase.code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), errorCase]);
  }
  const responses: Record<string, OpenApiObject> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    responses[String(status)] = errorResponse(status, byStatus.get(status) ?? [], options);
  }
  return responses;
}

function errorResponse(status: number, cases: readonly ErrorCase[], options: ErrorResponseOptions): OpenApiObject {
  const codes = cases.map((errorCase) => errorCase.code);
  const schema: JsonSchema = {
    allOf: [schemaRef(options.oauth ? 'OAuthErrorEnvelope' : 'ErrorEnvelope')],
    oneOf: codes.map((code) => schemaRef(errorCodeSchemaName(code))),
  };
  const examples = (format: ExampleFormat) =>
    Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${errorExampleName(code, options.oauth, format)}` }]));
  return {
    description: describeCases(status, cases),
    headers: { ...requestIdHeader(), 'Cache-Control': headerRef('Cache-Control.no-store'), ...statusHeaders(status, codes, options) },
    content: {
      'application/json': { schema, examples: examples('json') },
      'application/xml': { schema, examples: examples('xml') },
    },
    'x-error-codes': codes,
  };
}

type ExampleFormat = 'json' | 'xml';

const errorExampleName = (code: ErrorCode, oauth: boolean, format: ExampleFormat): string => `${code}${oauth ? '.oauth' : ''}.${format}`;

/**
 * components.examples for the error responses of the operations given: each
 * envelope rendered by the gateway's own envelope and XML code, once per
 * code, flavour (with or without RFC 6749 members) and format.
 */
export function errorExamples(operations: ReadonlyArray<{ cases: readonly ErrorCase[]; oauth: boolean }>): Record<string, OpenApiObject> {
  const examples: Record<string, OpenApiObject> = {};
  for (const { cases, oauth } of operations) {
    for (const { code } of cases) {
      const envelope = errorEnvelope(code, EXAMPLE_REQUEST_ID, oauth);
      const summary = `${code}: ${catalogue[code].message}`;
      examples[errorExampleName(code, oauth, 'json')] = { summary, value: envelope };
      examples[errorExampleName(code, oauth, 'xml')] = { summary, value: toXmlDocument(ERROR_XML.xmlRoot, envelope, ERROR_XML.xmlItem) };
    }
  }
  return examples;
}

/** Headers that come with particular codes; each is sent exactly where the gateway sends it. */
function statusHeaders(status: number, codes: readonly ErrorCode[], options: ErrorResponseOptions): Record<string, OpenApiObject> {
  const headers: Record<string, OpenApiObject> = {};
  if (status === 405) headers.Allow = allowHeader(options.methods);
  if (status === 503) headers['Retry-After'] = headerRef('Retry-After.required');
  if (codes.includes('SPIKE_ARREST')) headers['Retry-After'] = headerRef('Retry-After.spike-arrest');
  if (options.oauth && codes.includes('INVALID_CLIENT_CREDENTIALS')) headers['WWW-Authenticate'] = headerRef('WWW-Authenticate.basic');
  return headers;
}

function describeCases(status: number, cases: readonly ErrorCase[]): string {
  const first = cases[0];
  const reason = first ? catalogue[first.code].errorType : String(status);
  const rows = cases.map(({ code, when }) => `| \`${code}\` | ${cell(catalogue[code].message)} | ${cell(when)} |`);
  return [`${reason}: one of these \`errorCode\`s.`, '', '| errorCode | message | when |', '|---|---|---|', ...rows].join('\n');
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
