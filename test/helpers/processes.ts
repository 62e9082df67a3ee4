import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The built binary, exactly what `npx token-gateway` runs (npm test builds it first). */
export const BIN = resolve('dist/cli/main.js');

export interface CliOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `token-gateway <args>` as an operator does, `stdin` piped in; resolves when it exits. */
export function runCli(args: readonly string[], stdin = ''): Promise<CliOutcome> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** Live child processes of `pid`, from /proc. */
export function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(fields[1]) === pid && fields[0] !== 'Z';
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}
