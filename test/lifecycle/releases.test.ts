import { describe, expect, it } from 'vitest';
import { Releases } from '../../src/lifecycle/releases.js';

describe('releasing what a failed start built', () => {
  it('runs every release, the last added first, each awaited, then rethrows the failure', async () => {
    const order: string[] = [];
    const releases = new Releases();
    releases.add(() => order.push('store'));
    releases.add(
      async () => {
        await Promise.resolve();
        order.push('listener');
      },
      () => order.push('watcher'),
    );
    const failure = new Error('EADDRINUSE');
    await expect(releases.failStart(failure)).rejects.toBe(failure);
    expect(order).toEqual(['watcher', 'listener', 'store']);
  });

  it('rethrows at once when nothing was built', async () => {
    const failure = new Error('bad config');
    await expect(new Releases().failStart(failure)).rejects.toBe(failure);
  });
});
