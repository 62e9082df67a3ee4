import { describe, expect, it } from 'vitest';
import { reloadTable } from '../../src/docs/reload-table.js';
import { RELOAD_RULES } from '../../src/lifecycle/reload-plan.js';

describe('docs/reload-table: what a reload applies, in docs/operations.md', () => {
  const lines = reloadTable().split('\n');
  const rows = lines.slice(2).map((line) => line.slice(2, -2).split(' | '));

  it('has the columns key, on reload, why', () => {
    expect(lines[0]).toBe('| gateway.yaml key | on reload | why |');
  });

  it('lists every key of RELOAD_RULES once: those applied live first, then those that need a restart, each group in the rules\' order', () => {
    const entries = Object.entries(RELOAD_RULES);
    const expected = [...entries.filter(([, rule]) => rule.live), ...entries.filter(([, rule]) => !rule.live)].map(([key]) => `\`${key}\``);
    expect(rows.map(([key]) => key)).toEqual(expected);
  });

  it.each(Object.entries(RELOAD_RULES))('says of %s what the rule says, and why', (key, rule) => {
    const row = rows.find(([cell]) => cell === `\`${key}\``);
    expect(row?.[1]).toBe(rule.live ? 'applied live' : 'needs a restart');
    expect(row?.[2]).toBe(rule.why.replace(/\|/g, '\\|'));
  });
});
