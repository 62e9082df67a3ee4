import type { GatewayContext } from '../context.js';
import type { AdminOperation, AdminResult } from '../admin/operation.js';
import { ADMIN_OPERATIONS } from '../admin/routes.js';
import { readinessOf } from '../telemetry/health.js';
import { isAsk, type AnswerOf, type Question, type QuestionKind, type Reply } from './messages.js';

/** The primary as a worker sees it; `toPrimary` is node:cluster's channel (process.send). */
export interface PrimaryLink {
  onMessage(listener: (message: unknown) => void): void;
  send(message: Reply): void;
}

export const toPrimary: PrimaryLink = {
  onMessage: (listener) => void process.on('message', listener),
  // A primary that is gone has nobody to answer: the send error is dropped rather than emitted (and fatal).
  send: (message) => void process.send?.(message, () => undefined),
};

/**
 * A worker's side: answers the primary's questions with its own context,
 * so that the primary's admin listener can show the whole cluster. The
 * context is asked for at each question: a reload replaces it.
 */
export function answerPrimary(current: () => GatewayContext, link: PrimaryLink = toPrimary, operations: readonly AdminOperation[] = ADMIN_OPERATIONS): void {
  link.onMessage((message) => {
    if (!isAsk(message)) return;
    const ctx = current();
    answer(ctx, message.question, operations).then(
      (reply) => link.send({ type: 'token-gateway:reply', id: message.id, answer: reply }),
      // Unanswered, the primary counts this worker as silent after its timeout.
      (error: unknown) => ctx.logger.error({ err: error, question: message.question.kind }, 'could not answer the primary'),
    );
  });
}

async function answer(ctx: GatewayContext, question: Question, operations: readonly AdminOperation[]): Promise<AnswerOf[QuestionKind]> {
  switch (question.kind) {
    case 'metrics':
      return ctx.metrics.registry.getMetricsAsJSON();
    case 'readiness':
      return readinessOf(ctx);
    case 'operation':
      return runOperation(ctx, operations, question.path, question.input);
  }
}

/** As the worker's own admin listener would run it; a failure is logged here and answered as the admin listener's 500. */
async function runOperation(ctx: GatewayContext, operations: readonly AdminOperation[], path: string, input: Readonly<Record<string, unknown>>): Promise<AdminResult> {
  const operation = operations.find((candidate) => candidate.path === path);
  if (!operation) return { status: 404, body: { error: `no admin endpoint at ${path}` } };
  try {
    return await operation.run(ctx, input);
  } catch (error) {
    ctx.logger.error({ err: error, path }, 'admin request failed');
    return { status: 500, body: { error: 'unexpected failure; see the gateway log' } };
  }
}
