import type { AnswerOf, Ask, Question, QuestionKind } from './messages.js';
import { isReply } from './messages.js';

/** A worker as the primary sees it; `linkOf` adapts a node:cluster Worker. */
export interface WorkerLink {
  readonly pid: number | undefined;
  isConnected(): boolean;
  /** Sends, and calls `failed` if the message could not be handed over (the worker is going away). */
  send(message: Ask, failed: () => void): void;
  /**
   * Whether the worker listens, i.e. node:cluster hands it connections (a
   * worker listens only once it is ready); absent: taken as listening.
   */
  isListening?(): boolean;
}

/** A worker's answer, or `undefined` when it said nothing within the time allowed. */
export interface WorkerAnswer<K extends QuestionKind> {
  readonly pid: number | undefined;
  readonly answer: AnswerOf[K] | undefined;
}

const DISCONNECT_CHECK_MS = 250;

type QuestionOf<K extends QuestionKind> = Extract<Question, { kind: K }>;

/**
 * The primary's side of the conversation: asks workers, matches their
 * replies to the questions by id, and never waits longer than it was told.
 * A worker that is starting, stuck or dying simply does not answer.
 */
export class WorkerQuestions {
  private nextId = 1;
  private readonly waiting = new Map<number, (answer: unknown) => void>();
  private turn = 0;

  constructor(private readonly workers: () => readonly WorkerLink[]) {}

  /** Every message a worker sends goes through here; replies settle their question, the rest is ignored. */
  receive(message: unknown): void {
    if (isReply(message)) this.waiting.get(message.id)?.(message.answer);
  }

  /**
   * The workers that answer: IPC channel open, and listening. One that does
   * not listen yet is waiting for its store and keys, with no context to
   * answer from; asking it would only wait out the timeout.
   */
  live(): WorkerLink[] {
    return this.workers().filter((worker) => worker.isConnected() && (worker.isListening?.() ?? true));
  }

  /** The workers that run but do not listen yet (they get no connection): starting, or waiting for Redis. */
  starting(): WorkerLink[] {
    return this.workers().filter((worker) => worker.isConnected() && !(worker.isListening?.() ?? true));
  }

  ask<K extends QuestionKind>(worker: WorkerLink, question: QuestionOf<K>, timeoutMs: number): Promise<AnswerOf[K] | undefined> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const settle = (answer: unknown) => {
        clearTimeout(timer);
        clearInterval(watch);
        this.waiting.delete(id);
        resolve(answer as AnswerOf[K] | undefined);
      };
      const timer = setTimeout(() => settle(undefined), timeoutMs);
      // A worker that exits never answers: stop waiting then, not at the end of a long operation's allowance.
      const watch = setInterval(() => worker.isConnected() || settle(undefined), DISCONNECT_CHECK_MS);
      this.waiting.set(id, settle);
      worker.send({ type: 'token-gateway:ask', id, question }, () => settle(undefined));
    });
  }

  /** The same question to every live worker at once. */
  askEach<K extends QuestionKind>(question: QuestionOf<K>, timeoutMs: number): Promise<Array<WorkerAnswer<K>>> {
    return Promise.all(this.live().map(async (worker) => ({ pid: worker.pid, answer: await this.ask(worker, question, timeoutMs) })));
  }

  /** The next live worker in turn, so that admin operations spread over the workers; undefined when none is running. */
  pick(): WorkerLink | undefined {
    const live = this.live();
    if (live.length === 0) return undefined;
    return live[this.turn++ % live.length];
  }
}
