import { describe, expect, it } from 'vitest';
import { SingleFlight } from '../src/single-flight.js';

/** A promise settled from outside, so that a test decides when a run ends (Promise.withResolvers is Node 22). */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('SingleFlight', () => {
  it('gives callers that arrive during a run the same promise, and runs the task once', async () => {
    const flight = new SingleFlight<string>();
    const gate = deferred<string>();
    let runs = 0;
    const task = () => {
      runs++;
      return gate.promise;
    };
    const calls = Array.from({ length: 100 }, () => flight.run(task));
    expect(new Set(calls).size).toBe(1);
    gate.resolve('token');
    expect(await Promise.all(calls)).toEqual(Array(100).fill('token'));
    expect(runs).toBe(1);
  });

  it('starts a new run for the first caller after a run has settled', async () => {
    const flight = new SingleFlight<number>();
    let runs = 0;
    const task = async () => ++runs;
    expect(await flight.run(task)).toBe(1);
    expect(await flight.run(task)).toBe(2);
  });

  it('shares a failure with every waiting caller, and does not keep it: the next caller runs again', async () => {
    const flight = new SingleFlight<string>();
    const gate = deferred<string>();
    const first = flight.run(() => gate.promise);
    const second = flight.run(() => Promise.resolve('never run'));
    gate.reject(new Error('gateway down'));
    await expect(first).rejects.toThrow('gateway down');
    await expect(second).rejects.toThrow('gateway down');
    expect(await flight.run(async () => 'recovered')).toBe('recovered');
  });

  it('settled() resolves at once when nothing runs', async () => {
    await expect(new SingleFlight<string>().settled()).resolves.toBeUndefined();
  });

  it('settled() waits for the run in progress, and resolves even when that run fails', async () => {
    const flight = new SingleFlight<string>();
    const gate = deferred<string>();
    const run = flight.run(() => gate.promise);
    let settled = false;
    const waiting = flight.settled().then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    gate.reject(new Error('refused'));
    await expect(run).rejects.toThrow('refused');
    await waiting;
    expect(settled).toBe(true);
  });
});
