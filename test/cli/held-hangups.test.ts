import { afterEach, describe, expect, it } from 'vitest';
import { holdHangups, releaseHangups } from '../../src/cli/held-hangups.js';

describe('SIGHUP held while serve starts', () => {
  afterEach(() => void releaseHangups());

  it('holds a SIGHUP (the process lives on) and says one came when released', () => {
    holdHangups();
    process.emit('SIGHUP', 'SIGHUP');
    expect(releaseHangups()).toBe(true);
  });

  it('says none came when none did', () => {
    holdHangups();
    expect(releaseHangups()).toBe(false);
  });

  it('forgets a held SIGHUP once released, and stops listening', () => {
    const before = process.listenerCount('SIGHUP');
    holdHangups();
    holdHangups(); // idempotent: one listener
    expect(process.listenerCount('SIGHUP')).toBe(before + 1);
    process.emit('SIGHUP', 'SIGHUP');
    expect(releaseHangups()).toBe(true);
    expect(process.listenerCount('SIGHUP')).toBe(before);
    expect(releaseHangups()).toBe(false);
  });
});
