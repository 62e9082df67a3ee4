import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CommandIo } from '../../src/cli/io.js';
import { readSecret, SecretEntryCancelled } from '../../src/cli/read-secret.js';

function terminal(options: { hides: boolean }) {
  const modes: boolean[] = [];
  const stdin = Object.assign(new PassThrough(), { isTTY: true }, options.hides ? { setRawMode: (raw: boolean) => modes.push(raw) } : {});
  let stderr = '';
  const io: CommandIo = {
    stdin,
    stdout: new Writable({ write: (_chunk, _encoding, done) => done(new Error('nothing goes to stdout')) }),
    stderr: new Writable({ write: (chunk: Buffer, _encoding, done) => ((stderr += chunk.toString()), done()) }),
  };
  return { io, stdin, modes, stderr: () => stderr };
}

describe('readSecret', () => {
  it.each([
    ['pw\n', 'pw'],
    [' two words \r\n', ' two words '],
    ['no newline', 'no newline'],
    ['kept\n\n', 'kept\n'],
    ['', ''],
  ])('from a pipe reads everything less one trailing newline: %j', async (input, secret) => {
    const stdin = new PassThrough();
    stdin.end(input);
    expect(await readSecret({ ...terminal({ hides: false }).io, stdin }, 'Secret')).toBe(secret);
  });

  it('from a terminal that can hide input: raw mode while typing, Backspace edits, nothing echoed', async () => {
    const { io, stdin, modes, stderr } = terminal({ hides: true });
    const secret = readSecret(io, 'Password for alice');
    stdin.write('pa');
    stdin.write('x\u007fss\r');
    expect(await secret).toBe('pass');
    expect(modes).toEqual([true, false]);
    expect(stderr()).toBe('Password for alice (not echoed): \n');
  });

  it('from a terminal, Ctrl-C cancels and gives the terminal back', async () => {
    const { io, stdin, modes } = terminal({ hides: true });
    const secret = readSecret(io, 'Secret');
    stdin.write('abc\u0003');
    await expect(secret).rejects.toThrow(SecretEntryCancelled);
    expect(modes).toEqual([true, false]);
  });

  it('from a terminal that cannot hide input, warns that it is echoed and reads one line', async () => {
    const { io, stdin, stderr } = terminal({ hides: false });
    const secret = readSecret(io, 'Secret');
    stdin.write('typed\r\nnext line');
    expect(await secret).toBe('typed');
    expect(stderr()).toContain('input is echoed; pipe it in to keep it off the screen');
  });
});
