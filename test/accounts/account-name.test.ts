import { describe, expect, it } from 'vitest';
import { accountNameProblem } from '../../src/accounts/account-name.js';

describe('account names (username, client_id, status) the account commands accept', () => {
  it.each(['carol', 'partner-portal', 'a', 'x'.repeat(128), 'émilie', 'user@example.com', '名前'])('accepts %j', (name) => {
    expect(accountNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['', 'is empty'],
    ['x'.repeat(129), 'is longer than 128 characters'],
    ['carol ', 'contains whitespace or an invisible character'],
    ['ca rol', 'contains whitespace or an invisible character'],
    ['carol\t', 'contains whitespace or an invisible character'],
    ['car\u200bol', 'contains whitespace or an invisible character'],
    ['carol\u0000', 'contains whitespace or an invisible character'],
    ['\u00a0carol', 'contains whitespace or an invisible character'],
  ])('refuses %j: it %s', (name, problem) => {
    expect(accountNameProblem(name)).toBe(problem);
  });

  it('counts characters, not UTF-16 units: 128 astral characters are fine', () => {
    expect(accountNameProblem('😀'.repeat(128))).toBeUndefined();
    expect(accountNameProblem('😀'.repeat(129))).toBe('is longer than 128 characters');
  });
});
