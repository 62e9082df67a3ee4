import { describe, expect, it } from 'vitest';
import { catalogue, type ErrorCode } from '../../src/errors/catalogue.js';
import { errorTable } from '../../src/docs/error-table.js';

/** The cells of each row of a generated table, by its first cell. */
function rowsOf(markdown: string): Map<string, string[]> {
  const rows = markdown.split('\n').slice(2).map((line) => line.slice(2, -2).split(' | '));
  return new Map(rows.map((cells) => [cells[0] ?? '', cells]));
}

describe('docs/error-table: the error table of docs/errors.md, from the catalogue', () => {
  const table = errorTable();
  const rows = rowsOf(table);

  it('has the columns a client reads: errorCode, status, errorType, message, the RFC 6749 error, where the row comes from', () => {
    expect(table.split('\n')[0]).toBe('| errorCode | status | errorType | message | `error` | source |');
  });

  it('has one row per catalogue code, in catalogue order', () => {
    expect([...rows.keys()]).toEqual(Object.keys(catalogue).map((code) => `\`${code}\``));
  });

  it.each(Object.keys(catalogue) as ErrorCode[])('prints %s as the catalogue says', (code) => {
    const entry = catalogue[code];
    const [, status, errorType, message, oauthError, source] = rows.get(`\`${code}\``) ?? [];
    expect({ status, errorType, message, oauthError }).toEqual({ status: String(entry.status), errorType: entry.errorType, message: entry.message.replace(/\|/g, '\\|'), oauthError: `\`${entry.oauthError}\`` });
    expect(source).toMatch(entry.fromSpec ? /^\[contract, section 7\]\(http-contract\.md#7-errors\)/ : /^decided here/);
  });

  it('adds the catalogue\'s note to the source', () => {
    expect(rows.get('`SPIKE_ARREST`')?.[5]).toMatch(/\(`spike-arrest`\)$/);
  });
});
