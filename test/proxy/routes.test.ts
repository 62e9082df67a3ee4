import { describe, expect, it } from 'vitest';
import { RouteTable } from '../../src/proxy/routes.js';

const table = new RouteTable([
  { path: '/business/score/v2/', upstream: 'http://127.0.0.1:1', timeout: 1_000 },
  { path: '/business/score/v2/admin/', upstream: 'http://127.0.0.1:1', timeout: 1_000 },
  { path: '/other', upstream: 'http://127.0.0.1:1', timeout: 1_000 },
] as never);

const routeOf = (path: string) => {
  try {
    return table.match(path)?.path ?? 'none';
  } catch (error) {
    return `refused: ${(error as { detail?: string }).detail}`;
  }
};

describe('RouteTable', () => {
  it.each([
    ['/business/score/v2/directors', '/business/score/v2/'],
    ['/business/score/v2', '/business/score/v2/'],
    ['/business/score/v2/admin', '/business/score/v2/admin/'],
    ['/business/score/v2/admin/x', '/business/score/v2/admin/'],
    ['/business/score/v2/administrators', '/business/score/v2/'],
    ['/business/score/v20', 'none'],
    ['/other/x', '/other'],
    ['/OTHER/x', 'none'],
    // A route without a nested one is matched exactly as spelt: its letter case is the upstream's business.
    ['/business/score/V2/directors', 'none'],
    ['/business/score/v2/ADMIN/x', 'refused: path differs from a more specific route only in letter case'],
    ['/business/score/v2/Admin', 'refused: path differs from a more specific route only in letter case'],
    ['/business/score/v2/ADMINISTRATORS', '/business/score/v2/'],
  ])('%s -> %s', (path, expected) => {
    expect(routeOf(path)).toBe(expected);
  });
});
