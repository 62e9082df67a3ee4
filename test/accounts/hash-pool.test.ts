import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { HashPool } from '../../src/accounts/hash-pool.js';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';
import { isGatewayError } from '../../src/errors/gateway-error.js';

const FAST = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

/** The nice value of every thread of this process (Linux keeps it per thread). */
function threadNiceValues(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('HashPool', () => {
  let pool: HashPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('hashes and verifies on its threads', async () => {
    pool = new HashPool({ threads: 2, maxWaiting: 10, niceness: 10 });
    const hash = (await pool.run({ op: 'hash', secret: 's3cret', options: FAST })) as string;
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(await pool.run({ op: 'verify', hash, secret: 's3cret' })).toBe(true);
    expect(await pool.run({ op: 'verify', hash, secret: 'other' })).toBe(false);
  });

  it('runs hashing at the configured lower priority, leaving the event loop at its own', async () => {
    pool = new HashPool({ threads: 1, maxWaiting: 10, niceness: 7 });
    await pool.run({ op: 'hash', secret: 'x', options: FAST });
    const values = threadNiceValues();
    expect(values).toContain(7);
    expect(values.filter((value) => value === 7)).toHaveLength(1);
    expect(values[0]).toBe(0); // the main thread is listed first
  });

  it('queues beyond its threads and refuses with 503 beyond the queue, never waiting without bound', async () => {
    pool = new HashPool({ threads: 1, maxWaiting: 2, niceness: 10 });
    const hash = (await pool.run({ op: 'hash', secret: 'x', options: { memoryCost: 8192, timeCost: 3, parallelism: 1 } })) as string;
    const jobs = Array.from({ length: 4 }, () => pool!.run({ op: 'verify', hash, secret: 'x' }).then(
      (value) => value,
      (error: unknown) => error,
    ));
    const outcomes = await Promise.all(jobs);
    expect(outcomes.slice(0, 3)).toEqual([true, true, true]); // one running, two waiting
    const refused = outcomes[3];
    expect(isGatewayError(refused) && refused.code).toBe('SERVICE_UNAVAILABLE');
    expect(isGatewayError(refused) && refused.headers).toEqual({ 'Retry-After': '1' });
  });

  it('reports a malformed stored hash as a failed job, and keeps working', async () => {
    pool = new HashPool({ threads: 1, maxWaiting: 2, niceness: 10 });
    await expect(pool.run({ op: 'verify', hash: 'not-a-hash', secret: 'x' })).rejects.toThrow();
    const hash = (await pool.run({ op: 'hash', secret: 'x', options: FAST })) as string;
    expect(await pool.run({ op: 'verify', hash, secret: 'x' })).toBe(true);
  });

  it('on close, stops its threads: a running job is unavailable (503, never a wrong password), waiting and later ones refused', async () => {
    pool = new HashPool({ threads: 1, maxWaiting: 5, niceness: 10 });
    const slow = { memoryCost: 65_536, timeCost: 4, parallelism: 1 };
    const running = pool.run({ op: 'hash', secret: 'x', options: slow }).catch((error: unknown) => error);
    const waiting = pool.run({ op: 'hash', secret: 'y', options: FAST }).catch((error: unknown) => error);
    await pool.close();
    expect(await waiting).toEqual(new Error('hash pool closed'));
    const outcome = await running;
    expect(isGatewayError(outcome) && [outcome.code, outcome.detail]).toEqual(['SERVICE_UNAVAILABLE', 'hashing thread exited']);
    await expect(pool.run({ op: 'hash', secret: 'z', options: FAST })).rejects.toThrow('hash pool closed');
    expect(threadNiceValues()).not.toContain(10);
  });

  // A program that embeds the gateway may run as `node --input-type=module -e`;
  // the threads inherit node's flags, and that one once made their CommonJS
  // source an ES module (every hash failed: "require is not defined"). V8
  // flags beside it, the shipped ones and one an operator may add: handing the
  // threads the flags explicitly once refused them (ERR_WORKER_INVALID_EXEC_ARGV).
  // The built package, as such a program imports it (npm test builds it first).
  it('hashes in a process started with --input-type=module and V8 flags', () => {
    const entry = pathToFileURL(resolve('dist/index.js')).href;
    const run = spawnSync(process.execPath, [...NODE_FLAGS, '--max-semi-space-size=16', '--input-type=module', '-e', `const { hashSecret } = await import(${JSON.stringify(entry)}); console.log(await hashSecret('x'));`], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^\$argon2id\$/);
  });
});
