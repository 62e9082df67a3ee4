/**
 * The OpenAPI 3.1 document is plain JSON built from object literals; these
 * names only say which part of the specification a literal is.
 */
export type JsonSchema = Record<string, unknown>;
export type OpenApiObject = Record<string, unknown>;

export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const headerRef = (name: string): OpenApiObject => ({ $ref: `#/components/headers/${name}` });
export const parameterRef = (name: string): OpenApiObject => ({ $ref: `#/components/parameters/${name}` });
