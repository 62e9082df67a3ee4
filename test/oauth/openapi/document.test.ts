import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue, type ErrorCode } from '../../../src/errors/catalogue.js';
import { errorEnvelope } from '../../../src/http/render-error.js';
import type { GatewayContext } from '../../../src/context.js';
import { buildOpenApiDocument } from '../../../src/oauth/openapi/document.js';
import { bootGateway, type TestGateway } from '../../helpers/gateway.js';
import { OpenApiContract, pointerOf, referencesIn, type Json } from './contract.js';
import { send } from './exchange.js';
import { readXml } from './xml-reader.js';

/**
 * The served document is OpenAPI 3.1 in the ways tools depend on: it parses,
 * every reference resolves, every schema compiles under JSON Schema 2020-12
 * (the dialect of OpenAPI 3.1), every example is valid against its own
 * schema, and each error response admits exactly the codes it lists.
 */
describe('GET /oauth2/v1/openapi.json: the document', () => {
  let gw: TestGateway;
  let contract: OpenApiContract;
  let document: Json;

  beforeAll(async () => {
    gw = await bootGateway();
    const response = await fetch(`${gw.url}/oauth2/v1/openapi.json`);
    expect(response.status).toBe(200);
    document = JSON.parse(await response.text()) as Json;
    contract = new OpenApiContract(document);
  });
  afterAll(() => gw.close());

  it('is OpenAPI 3.1 with this gateway as its server', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info).toMatchObject({ title: expect.any(String), version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(document.servers).toEqual([expect.objectContaining({ url: gw.gateway.context.issuer })]);
    // No jsonSchemaDialect: schemas use OpenAPI 3.1's default, JSON Schema 2020-12 with the OAS vocabulary.
    expect(document.jsonSchemaDialect).toBeUndefined();
  });

  it('documents the token service paths, and each one is served', async () => {
    expect(Object.keys(document.paths as Json).sort()).toEqual([
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '/oauth2/v1/introspect',
      '/oauth2/v1/keys',
      '/oauth2/v1/openapi.json',
      '/oauth2/v1/revokeToken',
      '/oauth2/v1/token',
    ]);
    for (const { path } of contract.operations()) expect((await send(gw.url, { method: 'OPTIONS', path })).status).not.toBe(404);
  });

  it('resolves every $ref', () => {
    const references = referencesIn(document);
    expect(references.length).toBeGreaterThan(50);
    const dangling = references.filter(({ ref }) => contract.at(ref) === undefined);
    expect(dangling).toEqual([]);
  });

  it('compiles every schema with Ajv 2020 (JSON Schema 2020-12), in place', () => {
    const schemas = schemaPointers(document);
    expect(schemas.length).toBeGreaterThan(40);
    for (const pointer of schemas) expect(() => contract.validator(pointer), pointer).not.toThrow();
  });

  it('follows the OpenAPI rules tools rely on', () => {
    const operations = contract.operations();
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(operations.length);
    const schemes = Object.keys(((document.components as Json).securitySchemes ?? {}) as Json);
    const tags = ((document.tags ?? []) as Json[]).map((tag) => tag.name);
    for (const { key, operation } of operations) {
      for (const tag of operation.tags as string[]) expect(tags, key).toContain(tag);
      for (const requirement of operation.security as Json[]) for (const name of Object.keys(requirement)) expect(schemes, key).toContain(name);
      for (const parameter of (operation.parameters as unknown[]).map((p) => contract.deref(p) as Json)) {
        expect(parameter, key).toMatchObject({ name: expect.any(String), in: 'header', schema: expect.any(Object) });
        // OpenAPI 3.1 4.8.12: header parameters with these names are ignored; content types and security say them.
        expect(['accept', 'content-type', 'authorization'], key).not.toContain((parameter.name as string).toLowerCase());
      }
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        expect(contract.deref(response)?.description, `${key} ${status}`).toEqual(expect.any(String));
      }
    }
  });

  it('has examples that are valid against their own schemas, in JSON and in XML', () => {
    const arrays = contract.wrappedArrays();
    let checked = 0;
    for (const { key, operation } of contract.operations()) {
      for (const status of Object.keys(operation.responses as Json)) {
        for (const mediaType of contract.mediaTypes(key, Number(status))) {
          const pointer = contract.bodySchemaPointer(key, Number(status), mediaType);
          const media = (contract.response(key, Number(status))?.content as Record<string, Json>)[mediaType] as Json;
          const values = [media.example, ...Object.values((media.examples ?? {}) as Json).map((example) => contract.deref(example)?.value)].filter((value) => value !== undefined);
          for (const value of values) {
            const isXml = mediaType.endsWith('xml');
            const read = isXml ? readXml(value as string, arrays) : { root: undefined, value };
            const validate = contract.validator(pointer, isXml);
            expect(validate(read.value), `${key} ${status} ${mediaType}: ${JSON.stringify(validate.errors)}`).toBe(true);
            if (isXml) expect(read.root).toBe(contract.xmlRootName(contract.at(pointer)));
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    const passwordGrant = contract.at(pointerOf('paths', '/oauth2/v1/token', 'post', 'requestBody', 'content', 'application/json'));
    expect(contract.validator(`${pointerOf('paths', '/oauth2/v1/token', 'post', 'requestBody', 'content', 'application/json')}/schema`)((passwordGrant as Json).example)).toBe(true);
  });

  it('admits in each error response exactly the codes it lists, with their catalogue messages', () => {
    for (const { key, operation } of contract.operations()) {
      const oauth = key.startsWith('POST');
      for (const status of Object.keys(operation.responses as Json)) {
        const listed = contract.response(key, Number(status))?.['x-error-codes'] as string[] | undefined;
        if (!listed) continue;
        const validate = contract.validator(contract.bodySchemaPointer(key, Number(status), 'application/json'));
        for (const code of Object.keys(catalogue) as ErrorCode[]) {
          const envelope = errorEnvelope(code, 'a-request-id', oauth);
          expect(validate(envelope), `${key} ${status} ${code}`).toBe(listed.includes(code));
          // The right code with another code's message is not admitted either.
          const misquoted = { ...envelope, errors: [{ ...envelope.errors[0], message: 'Something else' }] };
          expect(validate(misquoted), `${key} ${status} ${code} with another message`).toBe(false);
        }
        for (const code of listed) expect(catalogue[code as ErrorCode]?.status, `${key} ${status} ${code}`).toBe(Number(status));
      }
    }
  });

  it('lists form request bodies exactly where this configuration reads them', () => {
    const bodies = (doc: Json, path: string) => Object.keys(((((doc.paths as Json)[path] as Json).post as Json).requestBody as Json).content as Json).sort();
    const FORM = 'application/x-www-form-urlencoded';
    // Forms off (this gateway's default): the spec's JSON only, on the token and revocation endpoints; introspection reads forms always.
    expect(bodies(document, '/oauth2/v1/token')).toEqual(['application/json']);
    expect(bodies(document, '/oauth2/v1/revokeToken')).toEqual(['application/json']);
    expect(bodies(document, '/oauth2/v1/introspect')).toContain(FORM);
    const context = gw.gateway.context;
    const formsOn = { ...context, config: { ...context.config, oauth: { form_encoded: true } } } as GatewayContext;
    const withForms = JSON.parse(JSON.stringify(buildOpenApiDocument(formsOn))) as Json;
    expect(bodies(withForms, '/oauth2/v1/token')).toEqual(['application/json', FORM]);
    expect(bodies(withForms, '/oauth2/v1/revokeToken')).toEqual(['application/json', FORM]);
    const formBody = pointerOf('paths', '/oauth2/v1/token', 'post', 'requestBody', 'content', FORM);
    const check = new OpenApiContract(withForms);
    expect(check.validator(`${formBody}/schema`)((check.at(formBody) as Json).example)).toBe(true);
  });
});

/** Every place in the document that holds a schema: components, parameters, headers, media types. */
function schemaPointers(document: Json): string[] {
  const found: string[] = [];
  const visit = (value: unknown, pointer: string): void => {
    if (!value || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      const childPointer = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      // A schema's own subschemas compile with it.
      if (key === 'schema' && child && typeof child === 'object') found.push(childPointer);
      else visit(child, childPointer);
    }
  };
  const components = document.components as Json;
  visit(document.paths, '#/paths');
  visit(components.headers, '#/components/headers');
  visit(components.parameters, '#/components/parameters');
  for (const name of Object.keys(components.schemas as Json)) found.push(pointerOf('components', 'schemas', name));
  return found;
}
