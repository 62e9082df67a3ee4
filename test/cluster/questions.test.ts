import { describe, expect, it } from 'vitest';
import type { Ask } from '../../src/cluster/messages.js';
import { WorkerQuestions, type WorkerLink } from '../../src/cluster/questions.js';

/** A worker whose answers the test scripts: `reply` answers an ask, or leaves it unanswered when it returns undefined. */
function worker(pid: number, questions: () => WorkerQuestions, reply: (ask: Ask) => unknown, state = { connected: true, accepts: true }) {
  const asked: Ask[] = [];
  const link: WorkerLink = {
    pid,
    isConnected: () => state.connected,
    send(message, failed) {
      if (!state.accepts) return failed();
      asked.push(message);
      const answer = reply(message);
      if (answer !== undefined) setImmediate(() => questions().receive({ type: 'token-gateway:reply', id: message.id, answer }));
    },
  };
  return { link, asked, state };
}

describe("the primary's questions to its workers", () => {
  it('matches each reply to its question by id', async () => {
    const workers: WorkerLink[] = [];
    const questions = new WorkerQuestions(() => workers);
    const w = worker(101, () => questions, (ask) => ({ echo: ask.id }));
    workers.push(w.link);
    const [a, b] = await Promise.all([questions.ask(w.link, { kind: 'readiness' }, 1_000), questions.ask(w.link, { kind: 'readiness' }, 1_000)]);
    expect([a, b]).toEqual([{ echo: w.asked[0]!.id }, { echo: w.asked[1]!.id }]);
    expect(w.asked[0]!.id).not.toBe(w.asked[1]!.id);
  });

  it('answers undefined when the worker says nothing within the time allowed', async () => {
    const workers: WorkerLink[] = [];
    const questions = new WorkerQuestions(() => workers);
    const silent = worker(102, () => questions, () => undefined);
    expect(await questions.ask(silent.link, { kind: 'metrics' }, 50)).toBeUndefined();
  });

  it('answers undefined at once when the message cannot be handed over', async () => {
    const questions = new WorkerQuestions(() => []);
    const going = worker(103, () => questions, () => ({}), { connected: true, accepts: false });
    const started = Date.now();
    expect(await questions.ask(going.link, { kind: 'metrics' }, 10_000)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('stops waiting for a worker that disconnects, long before a long allowance ends', async () => {
    const questions = new WorkerQuestions(() => []);
    const dying = worker(104, () => questions, () => undefined);
    const asking = questions.ask(dying.link, { kind: 'operation', path: '/x', input: {} }, 60_000);
    dying.state.connected = false;
    expect(await asking).toBeUndefined();
  });

  it('ignores messages that are not replies, and replies to questions no longer waited for', () => {
    const questions = new WorkerQuestions(() => []);
    expect(() => questions.receive({ cmd: 'NODE_CLUSTER' })).not.toThrow();
    expect(() => questions.receive({ type: 'token-gateway:reply', id: 999, answer: {} })).not.toThrow();
  });

  it('asks every live worker at once, and names each answer by pid', async () => {
    const workers: WorkerLink[] = [];
    const questions = new WorkerQuestions(() => workers);
    const a = worker(1, () => questions, () => 'a');
    const b = worker(2, () => questions, () => undefined);
    const gone = worker(3, () => questions, () => 'never', { connected: false, accepts: true });
    workers.push(a.link, b.link, gone.link);
    expect(await questions.askEach({ kind: 'readiness' }, 50)).toEqual([
      { pid: 1, answer: 'a' },
      { pid: 2, answer: undefined },
    ]);
    expect(gone.asked).toEqual([]);
  });

  it('asks and picks only workers that listen; one that does not listen yet is starting, never asked', async () => {
    const workers: WorkerLink[] = [];
    const questions = new WorkerQuestions(() => workers);
    const serving = worker(1, () => questions, () => 'serving');
    const waiting = worker(2, () => questions, () => 'never');
    workers.push({ ...serving.link, isListening: () => true }, { ...waiting.link, isListening: () => false });
    expect(await questions.askEach({ kind: 'readiness' }, 50)).toEqual([{ pid: 1, answer: 'serving' }]);
    expect([questions.pick(), questions.pick()].map((link) => link?.pid)).toEqual([1, 1]);
    expect(questions.starting().map((link) => link.pid)).toEqual([2]);
    expect(waiting.asked).toEqual([]);
  });

  it('picks the live workers in turn, and none when none is running', () => {
    const workers: WorkerLink[] = [];
    const questions = new WorkerQuestions(() => workers);
    expect(questions.pick()).toBeUndefined();
    const [a, b, c] = [worker(1, () => questions, () => 1), worker(2, () => questions, () => 2), worker(3, () => questions, () => 3)];
    workers.push(a.link, b.link, c.link);
    b.state.connected = false;
    expect([questions.pick(), questions.pick(), questions.pick()].map((link) => link?.pid)).toEqual([1, 3, 1]);
  });
});
