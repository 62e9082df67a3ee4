import { isGatewayError } from '../errors/gateway-error.js';
import type { AdminResult } from './operation.js';

/**
 * An admin operation refusing, with the status and the sentence an operator
 * (or the CLI, which prints it as sent) needs to put it right.
 */
export class AdminRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'AdminRefusal';
  }
}

type Input = Readonly<Record<string, unknown>>;

/**
 * Runs an operation's body and answers every expected failure as a result:
 * a refusal as its status, a store or key ring that cannot serve now as 503.
 * Anything else is a bug, left to the admin listener (500, logged).
 */
export async function answering(body: () => Promise<AdminResult>): Promise<AdminResult> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof AdminRefusal) return { status: error.status, body: { error: error.message } };
    if (isGatewayError(error) && error.code === 'SERVICE_UNAVAILABLE') {
      return { status: 503, body: { error: `not possible right now (${error.detail ?? 'store unavailable'}); try again` } };
    }
    throw error;
  }
}

/** A misspelt field must not be ignored: `{"user": "alice"}` silently revoking nothing would be worse than a 400. */
export function refuseUnknownFields(input: Input, known: readonly string[]): void {
  const unknown = Object.keys(input).filter((field) => !known.includes(field));
  if (unknown.length === 0) return;
  const expected = known.length === 0 ? 'this takes none' : `expected ${known.map((field) => `"${field}"`).join(', ')}`;
  throw new AdminRefusal(400, `unknown field ${unknown.map((field) => `"${field}"`).join(', ')}; ${expected}`);
}

/** A user name or client id: absent, or a non-empty string. */
export function optionalName(input: Input, field: string): string | undefined {
  const value = input[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new AdminRefusal(400, `"${field}" must be a non-empty string`);
  return value;
}

export function optionalBoolean(input: Input, field: string): boolean {
  const value = input[field];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new AdminRefusal(400, `"${field}" must be true or false`);
  return value;
}

/** A whole number within bounds, from a query string (GET) or a JSON number. */
export function boundedCount(input: Input, field: string, { fallback, max }: { fallback: number; max: number }): number {
  const value = input[field];
  if (value === undefined) return fallback;
  const count = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > max) {
    throw new AdminRefusal(400, `"${field}" must be a whole number from 1 to ${max}`);
  }
  return count;
}

/** Times as ISO 8601 in UTC: readable in a terminal and unambiguous for scripts. */
export const isoTime = (epochMs: number): string => new Date(epochMs).toISOString();
