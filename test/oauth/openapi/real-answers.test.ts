import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue, type ErrorCode } from '../../../src/errors/catalogue.js';
import { OpenApiContract, type Json } from './contract.js';
import { send, type Reply } from './exchange.js';
import { Profiles } from './profiles.js';
import { RECIPES, recipeKey, type Recipe } from './recipes.js';
import { readXml } from './xml-reader.js';

/**
 * The document against the real gateway: one recipe per (path, method,
 * status, errorCode) the document lists, each sent to a real gateway, whose
 * answer must be the documented one: status, body valid against the
 * documented schema for its media type, an errorCode and message the
 * response lists, and the documented headers. A listed answer without a
 * recipe fails, and so does a recipe whose answer is not listed: the
 * document and the gateway cannot drift apart.
 */
describe('the OpenAPI document against the real gateway', () => {
  const profiles = new Profiles();
  let contract: OpenApiContract;
  /** `<operation> <success|error> <media type>` of every answer seen, for the media coverage check. */
  const seenMedia = new Set<string>();

  beforeAll(async () => {
    const plain = await profiles.get('plain');
    const reply = await send(plain.url, { method: 'GET', path: '/oauth2/v1/openapi.json' });
    contract = new OpenApiContract(JSON.parse(reply.body) as Json);
  });
  afterAll(() => profiles.closeAll(), 30_000);

  it('has a recipe for every (path, status, errorCode) it lists', () => {
    const cooked = new Set(RECIPES.map((recipe) => recipeKey(recipe.operation, recipe.status, recipe.errorCode)));
    const documented = contract.documentedCases().map(({ operation, status, errorCode }) => recipeKey(operation, status, errorCode));
    expect(documented.length).toBeGreaterThan(60);
    expect(documented.filter((key) => !cooked.has(key))).toEqual([]);
  });

  it('lists every answer a recipe produces', () => {
    const documented = new Set(contract.documentedCases().map(({ operation, status, errorCode }) => recipeKey(operation, status, errorCode)));
    expect(RECIPES.map((recipe) => recipeKey(recipe.operation, recipe.status, recipe.errorCode)).filter((key) => !documented.has(key))).toEqual([]);
  });

  it.each(RECIPES.map((recipe) => [`${recipeKey(recipe.operation, recipe.status, recipe.errorCode)}: ${recipe.what}`, recipe] as const))('%s', async (_name, recipe) => {
    const reply = await recipe.run(await profiles.get(recipe.profile));
    expect(reply.status, reply.body).toBe(recipe.status);
    const response = contract.response(recipe.operation, reply.status);
    expect(response, `${recipe.operation} does not document ${reply.status}`).toBeDefined();
    const mediaType = documentedMediaType(contract, recipe, reply);
    seenMedia.add(`${recipe.operation} ${recipe.errorCode ? 'error' : 'success'} ${mediaType}`);
    const body = bodyOf(contract, recipe, reply, mediaType);
    expectErrorCode(response as Json, recipe, body);
    expectHeaders(contract, recipe, reply);
  });

  // Each media type an operation documents for its successes, and for its errors, has been answered at least once
  // (errors are rendered by one function, so one XML error per operation stands for its other statuses).
  it('has seen every documented media type answered', () => {
    const documented = new Set(
      contract.documentedCases().flatMap(({ operation, status, errorCode }) =>
        contract.mediaTypes(operation, status).map((mediaType) => `${operation} ${errorCode ? 'error' : 'success'} ${mediaType}`),
      ),
    );
    expect([...documented].filter((entry) => !seenMedia.has(entry))).toEqual([]);
  });
});

/** The documented media type the answer came in (parameters such as charset aside). */
function documentedMediaType(contract: OpenApiContract, recipe: Recipe, reply: Reply): string {
  const essence = (reply.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const documented = contract.mediaTypes(recipe.operation, reply.status);
  expect(documented, `content type ${essence}`).toContain(essence);
  return essence;
}

/** Parses the body in its media type and validates it against the documented schema; returns it as JSON values. */
function bodyOf(contract: OpenApiContract, recipe: Recipe, reply: Reply, mediaType: string): Json {
  const pointer = contract.bodySchemaPointer(recipe.operation, reply.status, mediaType);
  const xml = mediaType.endsWith('/xml');
  const read = xml ? readXml(reply.body, contract.wrappedArrays()) : { root: undefined, value: JSON.parse(reply.body) as unknown };
  if (xml) expect(read.root).toBe(contract.xmlRootName(contract.at(pointer)));
  const validate = contract.validator(pointer, xml);
  expect(validate(read.value), `${reply.body.slice(0, 300)}\n${JSON.stringify(validate.errors, null, 1)}`).toBe(true);
  return read.value as Json;
}

function expectErrorCode(response: Json, recipe: Recipe, body: Json): void {
  const listed = response['x-error-codes'] as string[] | undefined;
  if (!recipe.errorCode) {
    expect(listed, 'a success response lists no error codes').toBeUndefined();
    return;
  }
  const [error] = body.errors as Array<{ errorCode: ErrorCode; message: string }>;
  expect(error?.errorCode).toBe(recipe.errorCode);
  expect(listed).toContain(error?.errorCode);
  expect(error?.message).toBe(catalogue[recipe.errorCode].message);
}

/** Every header the document requires is there, each documented header present is valid, and a recipe's own headers are documented. */
function expectHeaders(contract: OpenApiContract, recipe: Recipe, reply: Reply): void {
  const documented = contract.headers(recipe.operation, reply.status);
  for (const { name, required, schemaPointer } of documented) {
    const value = reply.headers[name];
    if (required) expect(value, `header ${name}`).toBeDefined();
    if (value === undefined) continue;
    const validate = contract.validator(schemaPointer);
    expect(validate(value), `header ${name}: ${String(value)}`).toBe(true);
  }
  for (const name of recipe.expectHeaders ?? []) {
    expect(documented.map((header) => header.name), `header ${name} is not documented`).toContain(name);
    expect(reply.headers[name], `header ${name}`).toBeDefined();
  }
}
