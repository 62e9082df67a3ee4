import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

export type Json = Record<string, unknown>;

/** The document is registered with Ajv under this id; its `#/...` references resolve against it. */
const DOCUMENT_ID = 'https://token-gateway.invalid/openapi.json';

/**
 * Keywords of an OpenAPI document that are not JSON Schema: the OAS base
 * dialect's own vocabulary (xml, example, discriminator, externalDocs) and
 * the document's top-level members, which Ajv meets when it compiles a
 * fragment of the document.
 */
const OPENAPI_KEYWORDS = ['xml', 'example', 'discriminator', 'externalDocs', 'openapi', 'info', 'servers', 'paths', 'components', 'tags', 'security', 'jsonSchemaDialect', 'webhooks'];

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** `POST /oauth2/v1/token`: how recipes name an operation. */
export type OperationKey = `${'GET' | 'POST'} ${string}`;

export interface DocumentedCase {
  operation: OperationKey;
  status: number;
  /** Undefined for a success response. */
  errorCode: string | undefined;
}

export const pointerOf = (...segments: Array<string | number>): string =>
  `#/${segments.map((segment) => String(segment).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

function newAjv(coerceTypes: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, coerceTypes });
  ajv.addVocabulary(OPENAPI_KEYWORDS);
  ajv.addFormat('uri', (value: string) => URL.canParse(value));
  // OpenAPI's format for secrets (UIs mask the field); any string is one.
  ajv.addFormat('password', true);
  return ajv;
}

/**
 * An OpenAPI 3.1 document as the tests read it: references resolved, every
 * schema compiled by Ajv 2020 in its place in the document (so `$ref`s keep
 * their meaning), and XML bodies validated against the same schema with
 * type coercion (XML has only text).
 */
export class OpenApiContract {
  private readonly ajv = newAjv(false);
  private readonly xmlAjv = newAjv(true);
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    this.ajv.addSchema(document, DOCUMENT_ID);
    this.xmlAjv.addSchema(document, DOCUMENT_ID);
  }

  /** The value at a `#/...` pointer, or undefined. */
  at(pointer: string): unknown {
    if (!pointer.startsWith('#/')) return undefined;
    let value: unknown = this.document;
    for (const raw of pointer.slice(2).split('/')) {
      const segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (value === null || typeof value !== 'object' || !(segment in value)) return undefined;
      value = (value as Json)[segment];
    }
    return value;
  }

  /** Follows `$ref`s (OpenAPI objects may be references) to the object itself. */
  deref(value: unknown): Json | undefined {
    let current = value;
    for (let hops = 0; hops < 10 && current && typeof current === 'object' && typeof (current as Json).$ref === 'string'; hops++) {
      current = this.at((current as Json).$ref as string);
    }
    return current && typeof current === 'object' ? (current as Json) : undefined;
  }

  operations(): Array<{ key: OperationKey; path: string; method: (typeof HTTP_METHODS)[number]; operation: Json }> {
    const paths = (this.document.paths ?? {}) as Record<string, Json>;
    return Object.entries(paths).flatMap(([path, item]) =>
      HTTP_METHODS.filter((method) => item[method] !== undefined).map((method) => ({
        key: `${method.toUpperCase()} ${path}` as OperationKey,
        path,
        method,
        operation: item[method] as Json,
      })),
    );
  }

  private locate(key: OperationKey): { path: string; method: string } {
    const [method = '', path = ''] = key.split(' ');
    return { path, method: method.toLowerCase() };
  }

  responsePointer(key: OperationKey, status: number): string {
    const { path, method } = this.locate(key);
    return pointerOf('paths', path, method, 'responses', String(status));
  }

  response(key: OperationKey, status: number): Json | undefined {
    return this.deref(this.at(this.responsePointer(key, status)));
  }

  /** Every (operation, status, errorCode) the document lists; one entry with no code per success response. */
  documentedCases(): DocumentedCase[] {
    return this.operations().flatMap(({ key, operation }) =>
      Object.keys(operation.responses as Json).flatMap((status) => {
        const codes = this.response(key, Number(status))?.['x-error-codes'] as string[] | undefined;
        return (codes ?? [undefined]).map((errorCode) => ({ operation: key, status: Number(status), errorCode }));
      }),
    );
  }

  mediaTypes(key: OperationKey, status: number): string[] {
    return Object.keys((this.response(key, status)?.content ?? {}) as Json);
  }

  /** The validator of the schema at a pointer, compiled once. */
  validator(pointer: string, xml = false): ValidateFunction {
    const cacheKey = `${xml ? 'xml' : 'json'} ${pointer}`;
    let validate = this.compiled.get(cacheKey);
    if (!validate) {
      validate = (xml ? this.xmlAjv : this.ajv).compile({ $ref: `${DOCUMENT_ID}${pointer}` });
      this.compiled.set(cacheKey, validate);
    }
    return validate;
  }

  bodySchemaPointer(key: OperationKey, status: number, mediaType: string): string {
    return `${this.responsePointer(key, status)}/content/${pointerOf(mediaType).slice(2)}/schema`;
  }

  /** The element name of an XML body: the `xml.name` of the schema (or of the envelope it extends). */
  xmlRootName(schema: unknown): string | undefined {
    const resolved = this.deref(schema);
    if (!resolved) return undefined;
    const own = (resolved.xml as Json | undefined)?.name;
    if (typeof own === 'string') return own;
    for (const part of (resolved.allOf as unknown[] | undefined) ?? []) {
      const name = this.xmlRootName(part);
      if (name) return name;
    }
    return undefined;
  }

  /** Properties whose XML form is a wrapped list (`xml: { wrapped: true }`). */
  wrappedArrays(): Set<string> {
    const names = new Set<string>();
    const visit = (value: unknown): void => {
      if (!value || typeof value !== 'object') return;
      const properties = (value as Json).properties;
      if (properties && typeof properties === 'object') {
        for (const [name, schema] of Object.entries(properties as Json)) {
          if ((schema as Json | undefined)?.type === 'array' && ((schema as Json).xml as Json | undefined)?.wrapped === true) names.add(name);
        }
      }
      for (const child of Object.values(value)) visit(child);
    };
    visit(this.document.components);
    return names;
  }

  /** Response headers of (operation, status), references resolved; names lower-cased as Node reports them. */
  headers(key: OperationKey, status: number): Array<{ name: string; required: boolean; schemaPointer: string }> {
    const declared = (this.response(key, status)?.headers ?? {}) as Record<string, Json>;
    return Object.entries(declared).map(([name, header]) => {
      const pointer = typeof header.$ref === 'string' ? header.$ref : `${this.responsePointer(key, status)}/headers/${pointerOf(name).slice(2)}`;
      return { name: name.toLowerCase(), required: this.deref(header)?.required === true, schemaPointer: `${pointer}/schema` };
    });
  }
}

/** Every `$ref` anywhere in a value, with where it was found. */
export function referencesIn(value: unknown, where = '#'): Array<{ ref: string; where: string }> {
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === '$ref' && typeof child === 'string' ? [{ ref: child, where }] : referencesIn(child, `${where}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`),
  );
}
