import type { AdminResult } from '../admin/operation.js';
import type { Readiness } from '../telemetry/health.js';

/*
 * Every message the cluster primary and its workers exchange for the admin
 * listener, which only the primary opens: a question with an id, an answer
 * with the same id. They travel as JSON over node:cluster's IPC channel.
 */

export type Question =
  /** The worker's registry as prom-client's getMetricsAsJSON() gives it, for AggregatorRegistry.aggregate. */
  | { readonly kind: 'metrics' }
  | { readonly kind: 'readiness' }
  /** Run the admin operation published at `path` with this input. */
  | { readonly kind: 'operation'; readonly path: string; readonly input: Readonly<Record<string, unknown>> };

export type QuestionKind = Question['kind'];

export interface AnswerOf {
  metrics: object[];
  readiness: Readiness;
  operation: AdminResult;
}

export interface Ask {
  readonly type: 'token-gateway:ask';
  readonly id: number;
  readonly question: Question;
}

export interface Reply {
  readonly type: 'token-gateway:reply';
  readonly id: number;
  readonly answer: AnswerOf[QuestionKind];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Anything else on the channel (node:cluster's own messages, prom-client's) is not ours. */
export const isAsk = (message: unknown): message is Ask =>
  isRecord(message) && message.type === 'token-gateway:ask' && typeof message.id === 'number' && isRecord(message.question);

export const isReply = (message: unknown): message is Reply => isRecord(message) && message.type === 'token-gateway:reply' && typeof message.id === 'number';
