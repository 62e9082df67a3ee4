import { describe, expect, it } from 'vitest';
import { formatTable } from '../../src/cli/table.js';

describe('formatTable', () => {
  it('pads each column to its widest cell, two spaces apart, the last column unpadded', () => {
    expect(formatTable(['USER', 'CLIENT', 'LOGIN'], [['alice', 'portal', '2026-11-21'], ['bob', 'mobile-app', '2026-11-20']])).toBe(
      'USER   CLIENT      LOGIN\nalice  portal      2026-11-21\nbob    mobile-app  2026-11-20\n',
    );
  });

  it('prints the header alone for no rows, and trims trailing spaces of empty cells', () => {
    expect(formatTable(['A', 'B'], [])).toBe('A  B\n');
    expect(formatTable(['NAME', 'NOTE'], [['x', '']])).toBe('NAME  NOTE\nx\n');
  });
});
