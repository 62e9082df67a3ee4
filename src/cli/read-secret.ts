import type { Writable } from 'node:stream';
import type { CommandIo } from './io.js';

/** Ctrl-C at a hidden prompt (raw mode turns it into a character instead of SIGINT). */
export class SecretEntryCancelled extends Error {
  override readonly name = 'SecretEntryCancelled';
}

type HideableInput = CommandIo['stdin'] & { setRawMode(raw: boolean): unknown };

const canHideInput = (stdin: CommandIo['stdin']): stdin is HideableInput =>
  stdin.isTTY === true && typeof (stdin as Partial<HideableInput>).setRawMode === 'function';

/**
 * One secret from standard input. From a pipe or a file: everything, less one
 * trailing newline (`\n` or `\r\n`), so `printf '%s\n' "$pw" |` and `< file`
 * both work. From a terminal: one line after a prompt on stderr (stdout stays
 * clean for scripts), not echoed when the terminal can switch echo off.
 */
export async function readSecret(io: CommandIo, what: string): Promise<string> {
  const { stdin } = io;
  stdin.setEncoding('utf8');
  if (!stdin.isTTY) return stripOneNewline(await readAll(stdin));
  if (canHideInput(stdin)) {
    io.stderr.write(`${what} (not echoed): `);
    return readHiddenLine(stdin, io.stderr);
  }
  io.stderr.write(`${what} (input is echoed; pipe it in to keep it off the screen): `);
  return stripOneNewline(await readLine(stdin));
}

async function readAll(stdin: CommandIo['stdin']): Promise<string> {
  let text = '';
  for await (const chunk of stdin) text += String(chunk);
  return text;
}

async function readLine(stdin: CommandIo['stdin']): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.slice(0, text.indexOf('\n') + 1 || undefined);
}

/** Raw mode: the terminal neither echoes nor edits, so Enter, Backspace, Ctrl-D and Ctrl-C are handled here. */
async function readHiddenLine(stdin: HideableInput, stderr: Writable): Promise<string> {
  stdin.setRawMode(true);
  let typed = '';
  try {
    for await (const chunk of stdin) {
      for (const char of String(chunk)) {
        if (char === '\r' || char === '\n' || char === '\u0004') return typed;
        if (char === '\u0003') throw new SecretEntryCancelled('cancelled');
        if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('');
        else if (char >= ' ') typed += char;
      }
    }
    return typed;
  } finally {
    stdin.setRawMode(false);
    stderr.write('\n');
  }
}

const stripOneNewline = (text: string): string => text.replace(/\r?\n$/, '');
